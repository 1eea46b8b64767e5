"""The search log is bounded: old records age out, and the number of queries kept is capped."""

import io
from datetime import timedelta

from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from wagtail.contrib.search_promotions.models import Query, QueryDailyHits, SearchPromotion

import pytest

from search.models import ZeroResultQuery
from search.retention import trim_search_log

pytestmark = pytest.mark.django_db


def logged(query_string: str, days_ago: int, hits: int = 1, zero: bool = False) -> Query:
    query = Query.objects.create(query_string=query_string)
    day = timezone.now() - timedelta(days=days_ago)
    QueryDailyHits.objects.create(query=query, date=day.date(), hits=hits)
    if zero:
        ZeroResultQuery.objects.create(query=query, hits=hits, first_seen_at=day, last_seen_at=day)
    return query


@override_settings(WAGTAILSEARCH_HITS_MAX_AGE=30)
def test_records_older_than_the_age_limit_are_deleted():
    logged("recent", days_ago=2, zero=True)
    logged("old", days_ago=45, zero=True)
    mixed = logged("mixed", days_ago=45, zero=True)
    QueryDailyHits.objects.create(query=mixed, date=timezone.now().date(), hits=3)
    trimmed = trim_search_log()
    assert set(Query.objects.values_list("query_string", flat=True)) == {"recent", "mixed"}
    assert list(QueryDailyHits.objects.filter(query=mixed).values_list("hits", flat=True)) == [3]
    # "mixed" was searched today but found nothing only 45 days ago: that record went.
    assert set(ZeroResultQuery.objects.values_list("query__query_string", flat=True)) == {"recent"}
    assert (trimmed.queries, trimmed.daily_hits) == (1, 2)


@override_settings(WAGTAILSEARCH_HITS_MAX_AGE=30)
def test_queries_with_editors_picks_are_kept_however_old(demo):
    old = logged("ridge point", days_ago=45)
    SearchPromotion.objects.create(query=old, page=demo.articles[0], sort_order=0)
    trim_search_log()
    assert Query.objects.filter(pk=old.pk).exists()


@override_settings(SEARCH_LOG_MAX_QUERIES=10)
def test_past_the_count_limit_the_least_recently_searched_go_down_to_90_percent(demo):
    for number in range(12):
        logged(f"query {number}", days_ago=20 - number, hits=1, zero=True)
    picked = logged("picked", days_ago=25)
    SearchPromotion.objects.create(query=picked, page=demo.articles[0], sort_order=0)
    trim_search_log()
    kept = set(Query.objects.values_list("query_string", flat=True))
    assert len(kept) == 9
    assert "picked" in kept
    assert kept - {"picked"} == {f"query {number}" for number in range(4, 12)}
    assert ZeroResultQuery.objects.count() == 8


@override_settings(SEARCH_LOG_MAX_QUERIES=5)
def test_a_flood_of_new_searches_cannot_grow_the_log_past_its_limit(client, demo):
    for number in range(20):
        client.get("/search/", {"query": f"zzyzx{number}"})
    assert 1 <= Query.objects.count() <= 5
    assert ZeroResultQuery.objects.count() <= 5
    # The latest search is always kept.
    assert ZeroResultQuery.objects.filter(query__query_string="zzyzx19").exists()


@override_settings(WAGTAILSEARCH_HITS_MAX_AGE=30)
def test_the_command_and_the_scheduler_trim_the_log():
    logged("old", days_ago=45, zero=True)
    out = io.StringIO()
    call_command("trim_search_log", stdout=out)
    assert "1 queries, 1 daily counts, 1 zero-result records deleted" in out.getvalue()
    logged("old again", days_ago=45)
    call_command("run_scheduler", "--once", stdout=io.StringIO(), stderr=io.StringIO())
    assert not Query.objects.exists()
