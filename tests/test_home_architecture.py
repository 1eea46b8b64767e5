"""``home`` is the site's foundation: it imports nothing from ``blog`` (docs/architecture.md).
Blog registers what home's caching must know (watched snippets, listing page types) at app start."""

import ast
from pathlib import Path

import pytest

HOME = Path(__file__).resolve().parent.parent / "home"


def imported_modules(source: str):
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


@pytest.mark.parametrize("path", sorted(HOME.rglob("*.py")), ids=lambda path: str(path.relative_to(HOME.parent)))
def test_home_imports_nothing_from_blog(path):
    blog_imports = [name for name in imported_modules(path.read_text()) if name == "blog" or name.startswith("blog.")]
    assert blog_imports == []


def test_the_scan_finds_imports_inside_functions():
    assert list(imported_modules("def f():\n    from blog.models import Author\n")) == ["blog.models"]


def test_blog_registers_its_models_with_the_cache():
    from blog.models import Author, BlogIndexPage, TopicPage
    from home.caching import invalidation
    from home.models import HomePage

    assert invalidation._watched(Author(name="x", slug="x"))
    assert {HomePage, BlogIndexPage, TopicPage} <= set(invalidation._listing_models)
