"""Serializer fields for the blog's page types in the headless API (``/api/v2/pages/``)."""

from rest_framework import serializers


class TopicsField(serializers.Field):
    """An article's live topics as ``[{"id", "title", "slug", "url"}]`` (``url`` site-relative)."""

    def __init__(self, **kwargs):
        super().__init__(read_only=True, **kwargs)

    def to_representation(self, topics):
        return [
            {"id": topic.pk, "title": topic.title, "slug": topic.slug, "url": topic.url}
            for topic in topics.all()
            if topic.live
        ]


class AuthorsField(serializers.Field):
    """An article's live authors as ``[{"id", "name", "slug", "role", "bio"}]``."""

    def __init__(self, **kwargs):
        super().__init__(read_only=True, **kwargs)

    def to_representation(self, authors):
        return [
            {"id": author.pk, "name": author.name, "slug": author.slug, "role": author.role, "bio": author.bio}
            for author in authors.all()
            if author.live  # an author waiting for their first approval is not credited yet
        ]
