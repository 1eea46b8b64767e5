"""Daily maintenance that other apps hand to ``manage.py run_scheduler``.

``home`` imports nothing from the apps built on it, so an app registers its periodic work here
from its ``ready()``: ``register_daily("trim_search_log", trim_search_log)``. The scheduler calls
each task once a day, after that minute's publishing; a task that raises is reported on stderr
(``<name> failed: <error>``) and tried again on the next run, and never stops publishing or the
other tasks.
"""

from collections.abc import Callable

_daily: dict[str, Callable[[], object]] = {}


def register_daily(name: str, task: Callable[[], object]) -> None:
    """Have ``run_scheduler`` call ``task()`` once a day; ``name`` appears in its error report."""
    _daily[name] = task


def daily_tasks() -> dict[str, Callable[[], object]]:
    """The registered tasks by name, in the order they were registered."""
    return dict(_daily)
