from django.apps import AppConfig


class BlogDemoConfig(AppConfig):
    """The demo content: fixture, blueprint illustrations and the ``load_demo`` command."""

    name = "blog.demo"
    label = "blog_demo"
    verbose_name = "Blog demo"
