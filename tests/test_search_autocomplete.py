"""Title autocomplete: a capped JSON endpoint and a small progressive-enhancement script."""

from pathlib import Path

from django.conf import settings

import pytest

from search.views import AUTOCOMPLETE_LIMIT

from .factories import ArticlePageFactory

pytestmark = pytest.mark.django_db


def test_autocomplete_returns_titles_and_urls_for_a_prefix(client, demo):
    # A prefix few titles share, so the article is within the first AUTOCOMPLETE_LIMIT results.
    assert (
        ArticlePageFactory._meta.model.objects.live().filter(title__icontains="utiliz").count() <= AUTOCOMPLETE_LIMIT
    )
    data = client.get("/search/autocomplete/", {"q": "utiliz"}).json()
    assert data["query"] == "utiliz"
    assert {
        "title": "How much utilization improvement do you need to break even on GPU checkpointing?",
        "url": "/blog/how-much-utilization-improvement-do-you-need-to-break-even-on-gpu-checkpointing/",
    } in data["results"]


def test_autocomplete_is_capped_and_leaves_out_drafts(client, demo):
    for number in range(AUTOCOMPLETE_LIMIT + 3):
        ArticlePageFactory(parent=demo.blog, title=f"Capybara field note {number}")
    ArticlePageFactory(parent=demo.blog, title="Capybara draft", live=False)
    results = client.get("/search/autocomplete/", {"q": "capyb"}).json()["results"]
    assert len(results) == AUTOCOMPLETE_LIMIT
    assert all(result["title"].startswith("Capybara field note") for result in results)


def test_autocomplete_with_nothing_to_complete_returns_no_results(client, demo):
    assert client.get("/search/autocomplete/").json() == {"query": "", "results": []}
    assert client.get("/search/autocomplete/", {"q": "(*)"}).json() == {"query": "", "results": []}


def test_autocomplete_cuts_long_input(client, demo):
    assert len(client.get("/search/autocomplete/", {"q": "a" * 5_000}).json()["query"]) == 60


def test_search_forms_work_without_javascript_and_load_the_script_from_a_file(client, demo):
    html = client.get("/").content.decode()
    header_form = html.split('class="site-search"', 1)[1].split("</form>", 1)[0]
    assert 'action="/search/"' in html and 'name="query"' in header_form
    assert 'data-autocomplete-url="/search/autocomplete/"' in html
    assert '<script src="/static/js/search-autocomplete.js" defer></script>' in html
    assert "<script>" not in html
    script = Path(settings.BASE_DIR, "static/js/search-autocomplete.js").read_text()
    assert "innerHTML" not in script  # titles are set as text, never parsed as HTML
    assert len(script) < 3_000
