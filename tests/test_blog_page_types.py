"""Page type rules: where each page type may be created, and that editors can create them."""

from wagtail.models import Page
from wagtail.test.utils import WagtailPageTestCase
from wagtail.test.utils.form_data import inline_formset, nested_form_data, rich_text, streamfield

import pytest

from blog.models import ArticlePage, BlogIndexPage, TopicPage
from home.models import HomePage

pytestmark = pytest.mark.django_db


class TestPageTypeRules(WagtailPageTestCase):
    def test_home_page_sits_at_the_root_and_holds_only_the_blog(self):
        self.assertAllowedParentPageTypes(HomePage, {Page})
        self.assertAllowedSubpageTypes(HomePage, {BlogIndexPage})

    def test_blog_index_holds_topics_and_articles(self):
        self.assertAllowedParentPageTypes(BlogIndexPage, {HomePage})
        self.assertAllowedSubpageTypes(BlogIndexPage, {TopicPage, ArticlePage})

    def test_topics_and_articles_are_leaves_under_the_blog(self):
        for model in (TopicPage, ArticlePage):
            self.assertAllowedParentPageTypes(model, {BlogIndexPage})
            self.assertAllowedSubpageTypes(model, set())

    def test_only_one_blog_index_per_home_page(self):
        home = HomePage.objects.get()
        assert not BlogIndexPage.can_create_at(home)


class TestEditorsCanCreatePages(WagtailPageTestCase):
    def setUp(self):
        self.login()
        self.blog = BlogIndexPage.objects.get()

    def test_create_topic(self):
        self.assertCanCreate(
            self.blog, TopicPage, nested_form_data({"title": "Checkpointing", "slug": "checkpointing", "intro": "x"})
        )

    def article_form_data(self, slug="a-new-deep-dive"):
        topic = TopicPage.objects.get(slug="gpu-costs")
        article = ArticlePage.objects.first()
        data = nested_form_data(
            {
                "title": "A new deep-dive",
                "slug": slug,
                "summary": "What changes when the cache no longer fits.",
                "image": article.image.pk,
                "image_alt": "",
                "search_description": "What changes when the cache no longer fits.",
                "body": streamfield(
                    [
                        ("heading", {"text": "Setting the scene", "level": "h2", "anchor": ""}),
                        ("paragraph", rich_text("<p>Hello.</p>")),
                        ("code", {"language": "python", "filename": "", "source": "print(1)"}),
                    ]
                ),
                "date_published": "",
                "comments": inline_formset([]),
            }
        )
        # Multiple-choice fields go in as lists, which nested_form_data would flatten.
        data["topics"] = [topic.pk]
        data["authors"] = [article.authors.first().pk]
        return data

    def test_create_article_with_body_blocks(self):
        self.assertCanCreate(self.blog, ArticlePage, self.article_form_data())
        created = ArticlePage.objects.get(slug="a-new-deep-dive")
        assert [block.block_type for block in created.body] == ["heading", "paragraph", "code"]
        assert [topic.slug for topic in created.topics.all()] == ["gpu-costs"]

    def test_demo_pages_render_and_preview(self):
        for page in [HomePage.objects.get(), self.blog, *TopicPage.objects.all()]:
            self.assertPageIsRenderable(page)
            self.assertPageIsPreviewable(page)
        article = ArticlePage.objects.first()
        self.assertPageIsRenderable(article)
        # StreamField editors are built in the browser, so the preview needs explicit form data.
        self.assertPageIsPreviewable(article, post_data=self.article_form_data(slug=article.slug))
