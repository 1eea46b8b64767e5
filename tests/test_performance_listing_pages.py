"""ListingPaginator reads pages past a listing's middle from its end: every page must hold the
same cards, in the same order, as Django's own paginator gives, ties and missing dates included."""

from django.core.paginator import Paginator
from django.utils import timezone

import pytest

from blog.listings import ListingPaginator
from blog.models import ArticlePage

from .factories import ArticlePageFactory

pytestmark = pytest.mark.django_db


def test_every_page_matches_djangos_paginator(demo):
    same_day = timezone.now().replace(microsecond=0)
    for _ in range(25):
        ArticlePageFactory(parent=demo.blog, topics=[demo.topics["gpu-costs"]], date_published=same_day)
    undated = list(ArticlePage.objects.order_by("-pk")[:3].values_list("pk", flat=True))
    ArticlePage.objects.filter(pk__in=undated).update(date_published=None)

    listing = ArticlePage.objects.listed().child_of(demo.blog)
    ours, django = ListingPaginator(listing, 7), Paginator(listing, 7)
    assert ours.num_pages == django.num_pages > 4
    for number in ours.page_range:
        expected = [article.pk for article in django.page(number).object_list]
        assert [article.pk for article in ours.page(number).object_list] == expected, number
    assert [article.pk for article in ours.page(ours.num_pages).object_list][-3:] == sorted(undated, reverse=True)
