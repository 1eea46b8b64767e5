"""Editors' picks, the no-results page, and the query log visible in the admin."""

from django.db import connection
from django.utils import timezone

from wagtail.contrib.search_promotions.models import Query, QueryDailyHits, SearchPromotion
from wagtail.models import PageViewRestriction

import pytest

from search.models import ZeroResultQuery
from search.query_log import record_search

from .factories import ArticlePageFactory

pytestmark = pytest.mark.django_db


def test_editors_picks_come_first_for_their_query(client, demo):
    pick = demo.articles[-1]
    query = Query.get("Ridge Point")
    SearchPromotion.objects.create(query=query, page=pick, description="Start here.", sort_order=0)
    SearchPromotion.objects.create(
        query=query, external_link_url="https://example.com/guide", external_link_text="The guide", sort_order=1
    )
    html = client.get("/search/", {"query": "ridge point"}).content.decode()
    picks = html.split('class="search-picks"', 1)[1].split("</section>", 1)[0]
    assert picks.index(pick.title) < picks.index("The guide")
    assert "Start here." in picks and 'href="https://example.com/guide"' in picks
    assert html.index("Editors’ picks") < html.index('class="card-grid"')


def test_editors_picks_hide_pages_readers_cannot_see(client, demo):
    draft = ArticlePageFactory(parent=demo.blog, title="Hidden pick", live=False)
    private = ArticlePageFactory(parent=demo.blog, title="Private pick")
    PageViewRestriction.objects.create(page=private, restriction_type="password", password="secret")
    query = Query.get("gpu")
    SearchPromotion.objects.create(query=query, page=draft, sort_order=0)
    SearchPromotion.objects.create(query=query, page=private, sort_order=1)
    html = client.get("/search/", {"query": "gpu"}).content.decode()
    assert "Hidden pick" not in html and "Private pick" not in html
    assert "Editors’ picks" not in html


def test_no_results_page_shows_the_query_topics_suggestion_and_picks(client, demo):
    SearchPromotion.objects.create(query=Query.get("cheskpoint"), page=demo.articles[0], sort_order=0)
    html = client.get("/search/", {"query": "cheskpoint"}).content.decode()
    assert "No articles match “cheskpoint”" in html
    assert 'Did you mean <a href="?query=checkpoint">checkpoint</a>?' in html or "checkpointing" in html
    for topic in demo.topics.values():
        assert f'href="/blog/{topic.slug}/"' in html
    assert demo.articles[0].title in html.split('class="search-picks"', 1)[1]


def test_searches_are_counted_in_wagtails_query_log(client, demo):
    client.get("/search/", {"query": "GPU  Costs"})
    client.get("/search/", {"query": "gpu costs"})
    client.get("/search/", {"query": "gpu costs", "page": "2"})  # paging is not a new search
    client.get("/search/", {"query": ""})
    query = Query.objects.get(query_string="gpu costs")
    assert QueryDailyHits.objects.get(query=query, date=timezone.now().date()).hits == 2
    assert Query.objects.count() == 1


def test_a_pick_added_after_a_search_shows_on_the_next_one(client, demo):
    # Which queries have picks is remembered per page-cache generation (search.views.promoted_queries);
    # saving or deleting a pick must start a new one.
    assert "Editors’ picks" not in client.get("/search/", {"query": "ridge point"}).content.decode()
    pick = SearchPromotion.objects.create(query=Query.get("ridge point"), page=demo.articles[-1], sort_order=0)
    assert "Editors’ picks" in client.get("/search/", {"query": "ridge point"}).content.decode()
    pick.delete()
    assert "Editors’ picks" not in client.get("/search/", {"query": "ridge point"}).content.decode()


def test_a_pick_for_a_query_with_punctuation_answers_that_search(client, demo):
    # Wagtail stores "what is a roofline?"; the reader's search is cleaned to "what is a roofline".
    SearchPromotion.objects.create(
        query=Query.get("What is a roofline?"), external_link_url="https://example.com/roofline", sort_order=0
    )
    html = client.get("/search/", {"query": "What is a roofline?"}).content.decode()
    assert 'href="https://example.com/roofline"' in html


def test_the_query_log_upsert_creates_once_then_counts():
    first, created = record_search("  Ridge   POINT ")
    again, created_again = record_search("ridge point")
    assert (created, created_again) == (True, False)
    assert first.pk == again.pk and first.query_string == "ridge point"
    assert QueryDailyHits.objects.get(query_id=first.pk, date=timezone.now().date()).hits == 2
    assert list(Query.objects.values_list("query_string", flat=True)) == ["ridge point"]


def test_searches_finding_nothing_are_recorded(client, demo):
    client.get("/search/", {"query": "zzyzx"})
    client.get("/search/", {"query": "ZZYZX"})
    client.get("/search/", {"query": "gpu"})
    recorded = ZeroResultQuery.objects.select_related("query").get()
    assert recorded.query.query_string == "zzyzx"
    assert recorded.hits == 2


def test_admin_reports_show_popular_and_zero_result_queries(admin_client, client, demo):
    client.get("/search/", {"query": "gpu"})
    client.get("/search/", {"query": "zzyzx"})
    popular = admin_client.get("/admin/searchpicks/reports/search-terms/").content.decode()
    assert "gpu" in popular and "zzyzx" in popular
    zero = admin_client.get("/admin/reports/searches-with-no-results/")
    assert zero.status_code == 200
    html = zero.content.decode()
    assert "zzyzx" in html and ">gpu<" not in html
    menu = admin_client.get("/admin/").content.decode()
    assert "Searches with no results" in menu


def test_zero_result_report_is_for_superusers_only(client, demo, django_user_model):
    user = django_user_model.objects.create_user("editor", password="x" * 12, is_staff=True)
    client.force_login(user)
    assert client.get("/admin/reports/searches-with-no-results/").status_code in {302, 403}


@pytest.mark.skipif(connection.vendor != "postgresql", reason="asynchronous commit is PostgreSQL's")
def test_the_query_log_commits_without_waiting_for_the_disk_and_only_its_own_transaction():
    """The upsert turns ``synchronous_commit`` off for the transaction it runs in (here the test's;
    in a request its own, autocommit: ``set_config(..., true)`` ends with it), so a search does not
    wait for the WAL flush."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL synchronous_commit = on")  # whatever the test settings say
        cursor.execute("SHOW synchronous_commit")
        (before,) = cursor.fetchone()
        record_search("ridge point")
        cursor.execute("SHOW synchronous_commit")
        (during,) = cursor.fetchone()
    assert (before, during) == ("on", "off")
    assert QueryDailyHits.objects.get(query__query_string="ridge point").hits == 1
