from django.apps import AppConfig


class BlogConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "blog"
    verbose_name = "Blog"

    def ready(self):
        from home.caching import fragments, invalidation

        from . import renditions
        from .models import Author, BlogIndexPage, TopicPage

        renditions.connect()
        invalidation.watch(Author)  # bylines and author pages show an author's name, photo and bio
        fragments.watch(Author, image_fields=("photo",))  # an article's cached author cards
        invalidation.register_listings(BlogIndexPage, TopicPage)
