"""``home`` is the site's foundation: it imports nothing from ``blog`` or ``search``
(docs/architecture.md). Those apps register what home must know at app start: watched snippets
and listing page types for its caching, daily maintenance for its scheduler."""

import ast
from pathlib import Path

import pytest

HOME = Path(__file__).resolve().parent.parent / "home"
APPS_BUILT_ON_HOME = ("blog", "search")


def imported_modules(source: str):
    """Every absolute module name ``source`` imports, at any depth (in functions and classes too),
    with ``import``, ``from ... import`` or ``import_module("...")``/``__import__("...")``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None)) in {"import_module", "__import__"}
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.args[0].value


def from_apps_built_on_home(source: str) -> list[str]:
    return [
        name
        for name in imported_modules(source)
        if any(name == app or name.startswith(f"{app}.") for app in APPS_BUILT_ON_HOME)
    ]


@pytest.mark.parametrize("path", sorted(HOME.rglob("*.py")), ids=lambda path: str(path.relative_to(HOME.parent)))
def test_home_imports_nothing_from_blog_or_search(path):
    assert from_apps_built_on_home(path.read_text()) == []


@pytest.mark.parametrize(
    "source",
    [
        "from blog.models import Author\n",
        "import search.retention\n",
        "def f():\n    from search.retention import trim_search_log\n",
        "class C:\n    def f(self):\n        import blog\n",
        "from importlib import import_module\ndef f():\n    return import_module('search.views')\n",
    ],
)
def test_the_scan_finds_imports_anywhere_in_a_module(source):
    assert len(from_apps_built_on_home(source)) == 1


def test_the_scan_ignores_modules_that_only_share_a_prefix():
    assert from_apps_built_on_home("import blogger\nfrom searchlight import x\nfrom wagtail import search\n") == []


def test_blog_registers_its_models_with_the_cache():
    from blog.models import Author, BlogIndexPage, TopicPage
    from home.caching import invalidation
    from home.models import HomePage

    assert invalidation._watched(Author(name="x", slug="x"))
    assert {HomePage, BlogIndexPage, TopicPage} <= set(invalidation._listing_models)


def test_search_registers_its_log_trim_with_the_scheduler():
    from home.operations.maintenance import daily_tasks
    from search.retention import trim_search_log

    assert daily_tasks()["trim_search_log"] is trim_search_log
