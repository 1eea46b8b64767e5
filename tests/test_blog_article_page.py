"""What an article page gives readers beyond its body: byline, dates, previous/next, share links,
related posts newest first, the call to action, and responsive pictures; and the error pages."""

import re
from io import BytesIO
from urllib.parse import parse_qs, urlsplit

from django.test import RequestFactory
from django.utils.timezone import localtime
from django.views.defaults import server_error

from bs4 import BeautifulSoup
from PIL import Image

from .factories import ArticlePageFactory, SiteImageFactory


def soup_of(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    return BeautifulSoup(response.content, "html.parser")


def test_article_header_has_standfirst_topics_byline_dates_and_reading_time(client, demo):
    article = demo.articles[3]
    soup = soup_of(client, article.url)
    header = soup.select_one(".article__header")
    assert header.select_one(".article__standfirst").get_text() == article.summary
    assert [a.get_text() for a in header.select(".card__topic")] == [t.title for t in article.topics.all()]
    assert f"{article.reading_time_minutes} min read" in header.get_text()
    byline = header.select_one(".article__byline")
    assert byline.select_one('a[rel="author"]')["href"] == "/blog/authors/cedana-editorial/"
    published, *updated = byline.select("time")
    assert published["datetime"] == article.date_published.strftime("%Y-%m-%dT%H:%M:%S+0000")
    # "Updated" only on a later day than "Published" (tests/test_reader_design.py covers both).
    if localtime(article.updated_at).date() != localtime(article.date_published).date():
        assert [time["datetime"] for time in updated] == [article.updated_at.strftime("%Y-%m-%dT%H:%M:%S+0000")]
    else:
        assert updated == [] and "Updated" not in byline.get_text()
    assert soup.select_one(".author-card .author-card__name a")["href"] == "/blog/authors/cedana-editorial/"


def test_previous_and_next_follow_the_listing_order(client, demo):
    newest_first = demo.articles  # the demo fixture, newest first as the blog lists them
    middle = newest_first[5]
    links = soup_of(client, middle.url).select(".adjacent a")
    assert [(a["rel"], a["href"]) for a in links] == [
        (["prev"], newest_first[6].url),
        (["next"], newest_first[4].url),
    ]
    # The newest article has no next one; the oldest no previous one.
    assert [a["rel"] for a in soup_of(client, newest_first[0].url).select(".adjacent a")] == [["prev"]]
    assert [a["rel"] for a in soup_of(client, newest_first[-1].url).select(".adjacent a")] == [["next"]]


def test_previous_and_next_skip_drafts_and_break_ties_by_id(client, demo):
    first, second = demo.articles[1], demo.articles[0]
    draft = ArticlePageFactory(parent=demo.blog, topics=[demo.topics["gpu-costs"]], live=False)
    draft.date_published = first.date_published
    draft.save()
    twin = ArticlePageFactory(parent=demo.blog, topics=[demo.topics["gpu-costs"]], date_published=first.date_published)
    older, newer = first.get_adjacent_articles()
    assert older == demo.articles[2]
    assert newer.pk == twin.pk  # same date, higher id: listed before ``first``
    assert twin.get_adjacent_articles() == (first, second)


def test_share_links_are_plain_links_with_the_page_url(client, demo):
    article = demo.articles[0]
    url = f"http://localhost{article.url}"
    links = {a.get_text(): a["href"] for a in soup_of(client, article.url).select(".share a")}
    assert set(links) == {"E-mail", "LinkedIn", "X", "Bluesky", "Hacker News", "Reddit"}
    assert parse_qs(urlsplit(links["LinkedIn"]).query) == {"url": [url]}
    assert parse_qs(urlsplit(links["Hacker News"]).query) == {"u": [url], "t": [article.title]}
    assert parse_qs(urlsplit(links["X"]).query) == {"url": [url], "text": [article.title]}
    mail = parse_qs(urlsplit(links["E-mail"]).query)
    assert mail["subject"] == [article.title] and mail["body"] == [f"{article.summary}\n\n{url}"]
    html = client.get(article.url).content.decode()
    assert not re.search(r"<script[^>]+src=\"https?://", html)  # no third-party scripts


def test_related_articles_share_a_topic_newest_first(client, demo):
    article = demo.articles[8]
    cards = soup_of(client, article.url).select(".related .card__title a")
    topic_ids = set(article.topics.values_list("pk", flat=True))
    expected = [a.url for a in demo.articles if a.pk != article.pk and topic_ids & {t.pk for t in a.topics.all()}][:3]
    assert [a["href"] for a in cards] == expected


def test_the_site_call_to_action_stands_in_when_the_body_has_none(client, demo):
    with_cta = demo.articles[0]
    assert with_cta.has_call_to_action
    assert len(soup_of(client, with_cta.url).select(".block-cta")) == 1
    without = ArticlePageFactory(parent=demo.blog, topics=[demo.topics["gpu-costs"]])
    assert not without.has_call_to_action
    cta = soup_of(client, without.url).select(".block-cta")
    assert len(cta) == 1 and cta[0].select_one("a.button").get_text() == "Schedule demo"


def test_pictures_offer_avif_webp_and_png_with_sizes_and_lazy_loading_below_the_fold(client, demo):
    article = next(a for a in demo.articles if a.topics.filter(slug="gpu-costs").exists())  # has related posts
    soup = soup_of(client, article.url)
    hero = soup.select_one(".article__hero picture")
    assert [source["type"] for source in hero.select("source")] == ["image/avif", "image/webp"]
    img = hero.select_one("img")
    assert img["src"].endswith(".png") and img["width"] == "800" and img["height"] == "450"
    assert img.get("loading") is None and img["fetchpriority"] == "high"  # the first thing readers see
    widths = [candidate.split()[1] for candidate in img["srcset"].split(", ")]
    assert widths == ["800w", "1200w"] and img["sizes"]
    for source in hero.select("source"):
        assert source["sizes"] == img["sizes"] and len(source["srcset"].split(", ")) == 2
    card = soup.select_one(".related .card__media img")
    assert card["loading"] == "lazy" and card["width"] and card["height"]
    featured = soup_of(client, "/blog/").select_one(".featured__media img")
    assert featured.get("loading") is None and featured["fetchpriority"] == "high"


def test_pictures_crop_around_the_focal_point(client, demo):
    """A 2400x675 image, red on the left half and blue on the right, with its focal point at x=300.
    Wagtail's fill crop (1200x675 here) keeps the focal point where it sits in the image, an eighth
    of the way in, so the crop spans x=150-1350 and turns blue at 1200, 700px into the 800px
    rendition; a centred crop (x=600-1800) would turn blue at 400px."""
    picture = Image.new("RGB", (2400, 675), "blue")
    picture.paste("red", (0, 0, 1200, 675))
    buffer = BytesIO()
    picture.save(buffer, "PNG")
    image = SiteImageFactory(file__from_file=BytesIO(buffer.getvalue()), file__filename="halves.png")
    image.focal_point_x, image.focal_point_y, image.focal_point_width, image.focal_point_height = 300, 337, 100, 100
    image.save()
    article = ArticlePageFactory(parent=demo.blog, topics=[demo.topics["gpu-costs"]], image=image)
    src = soup_of(client, article.url).select_one(".article__hero img")["src"]
    rendition = image.renditions.get(file__endswith=src.rsplit("/", 1)[1])
    with rendition.file.open() as file, Image.open(file) as cropped:
        assert cropped.size == (800, 450)
        assert cropped.getpixel((690, 225)) == (255, 0, 0)
        assert cropped.getpixel((710, 225)) == (0, 0, 255)


def test_styled_404(client, demo):
    response = client.get("/blog/no-such-article/")
    assert response.status_code == 404
    soup = BeautifulSoup(response.content, "html.parser")
    assert soup.select_one("h1").get_text() == "Page not found."
    assert soup.select_one('link[rel="stylesheet"]')["href"] == "/static/css/site.css"
    assert soup.select_one('form[role="search"] input[name="query"]') is not None


def test_500_page_renders_with_the_database_unavailable(django_db_blocker):
    """Django's server_error view renders 500.html; with database access blocked (pytest-django
    raises on any query or new connection, so the page cannot use one) it answers a styled page."""
    with django_db_blocker.block():
        response = server_error(RequestFactory().get("/blog/"))
    assert response.status_code == 500
    soup = BeautifulSoup(response.content, "html.parser")
    assert soup.select_one("h1").get_text() == "Something went wrong."
    assert soup.select_one('link[rel="stylesheet"]')["href"] == "/static/css/site.css"
    assert soup.select_one('meta[name="robots"]')["content"] == "noindex"
