"""Query budget for public pages: the SQL queries a page runs must not grow with the archive.

``PUBLIC_PAGES`` lists every public page as ``(name, url_for)``; ``url_for(site)`` gets a
``BudgetSite`` and returns the path to request. A new public page (feed, sitemap, author page)
gets the budget test in ``tests/test_performance_queries.py`` by adding one line here, e.g.
``("rss feed", lambda site: "/blog/feed/"),``.
"""

import math
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

# Issue #8: at most 10 queries per public page, the same at any number of articles.
MAX_QUERIES_PER_PAGE = 10
# The exact count of each page (SQLite and PostgreSQL alike unless given per database) on a
# full-page-cache miss with the cached fragments warm (the site chrome, cards, bodies, an
# article's related posts and previous/next links: the second request of a page in a cache
# generation). A change here is a change in how a page reads the database, so say why in the
# commit. docs/performance.md has the breakdown. Every page Wagtail serves starts with its
# routing (Wagtail's own ``Page.route``): the site (with its root page) and the home page's row,
# remembered for the cache generation (``home.upstream.wagtail.remembered_site_for_hostname``:
# +2 on the first request of one), then two queries per URL segment (the child by slug, its
# specific row); a path that names a page Wagtail found before in the cache generation costs no
# query for that page (``home.models.HomePage.route`` keeps its row), so routing a page is no
# query at any depth. Feeds and author pages end inside a page's own routes and are routed
# segment by segment.
EXPECTED_QUERIES = {
    # Cards are values rows; their topics and authors are remembered per article for the cache
    # generation (blog.listings.add_card_relations: one union query for those not remembered,
    # none on this second request); ArticlePages, their relations and renditions are read only
    # for cards whose cached fragment is missing (blog.fragments.render_cards).
    # which articles are the latest and their card rows are remembered for the generation, as a
    # listing's (blog_tags.latest_articles); +2 on the first request of one
    "home": 0,
    # nothing: what a page of a listing shows (its articles, the featured one, the
    # counts) and the cards' rows with their topics and authors are remembered for the generation
    # (blog.listings.remember_listing_page, remember_card_rows); the first request of a generation
    # also reads the page of cards and their topics and authors (+2)
    "blog index, page 1": 0,
    "blog index, last page": 0,
    "topic page": 0,
    # nothing: routing is remembered. The article's own fragments (SEO head; header to author cards) are keyed by
    # version tokens (blog/fragments.py): its topics, authors and renditions are read only when
    # one is missing (+4; +1 more, the body, when the body's fragment or the outline is missing)
    "article": 0,
    # search/views.py: the one full-text pass (PostgreSQL: a planner setting, one
    # statement for count, facets and first keys, the setting reset; SQLite: one statement for
    # count, facets and ranked keys), the page of results' keys with their indexed text
    # (PostgreSQL: in the statement that ranks the first keys fully), the query log (PostgreSQL
    # one statement, SQLite two). The cards' rows, topics and authors are remembered for the
    # generation (blog.listings.remembered_card_rows; +1 or +2 for results not remembered);
    # nothing else for cards whose fragment is cached (blog.fragments.render_cards), as on this
    # second request. A repeated search reads its results from the cache: only the query log.
    "search with a query": {"sqlite": 4, "postgresql": 5},
    "blog rss feed": 6,  # routing (2), the newest cards, their topics, authors, renditions
    "topic atom feed": 8,  # routing (4), as the rss feed
    "sitemap index": 4,  # a page count per page type (home/sitemaps.py)
    "sitemap of articles": 2,  # the count for paging, the page of articles
    "sitemap of blog indexes": 3,  # count, the index, its authors' latest publish
    "author page": 4,  # routing (2), the author, page of cards (topics and authors remembered)
}


@dataclass
class BudgetSite:
    """What ``url_for`` callables may use: the home page, blog index, one topic, an author of
    every article, the articles."""

    home: object
    blog: object
    topic: object
    author: object
    articles: list = field(default_factory=list)

    @property
    def last_listing_page(self) -> int:
        """The number of the blog index's last page of cards."""
        return max(1, math.ceil(len(self.articles) / settings.BLOG_PAGE_SIZE))


PUBLIC_PAGES = [
    ("home", lambda site: site.home.url),
    ("blog index, page 1", lambda site: site.blog.url),
    ("blog index, last page", lambda site: f"{site.blog.url}?page={site.last_listing_page}"),
    ("topic page", lambda site: site.topic.url),
    ("article", lambda site: site.articles[0].url),
    ("search with a query", lambda site: "/search/?query=gpus"),
    ("blog rss feed", lambda site: f"{site.blog.url}feed/rss/"),
    ("topic atom feed", lambda site: f"{site.topic.url}feed/atom/"),
    ("sitemap index", lambda site: "/sitemap.xml"),
    ("sitemap of articles", lambda site: "/sitemap-blog-articlepage.xml"),
    ("sitemap of blog indexes", lambda site: "/sitemap-blog-blogindexpage.xml"),
    ("author page", lambda site: f"{site.blog.url}authors/{site.author.slug}/"),
]


def expected_queries(name: str) -> int:
    """EXPECTED_QUERIES[name] for the database the tests run on."""
    expected = EXPECTED_QUERIES[name]
    return expected[connection.vendor] if isinstance(expected, dict) else expected


def count_queries(client, path: str) -> tuple[int, list[str]]:
    """Request ``path`` twice (the first makes image renditions and warms Wagtail's site cache)
    and return the second request's query count and SQL. Fails unless the page answers 200."""
    first = client.get(path)
    assert first.status_code == 200, f"{path} answered {first.status_code}"
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    assert response.status_code == 200, f"{path} answered {response.status_code}"
    return len(queries), [query["sql"] for query in queries.captured_queries]
