"""Page numbers from query strings (``?page=`` on listings and search, ``?p=`` on sitemaps).

A query string is hostile input. ``int()`` accepts far more than a page number: signs
(``+1``), surrounding whitespace (``2\\n``), underscores (``1_0``) and every Unicode digit
(full-width ``１``, Arabic-Indic ``١``), each of which would serve a duplicate of a real page.
"""

import re

# At most six digits: no listing has a million pages, and longer strings cost nothing to refuse.
_PAGE_NUMBER = re.compile(r"[1-9][0-9]{0,5}", re.ASCII)


def page_number(raw: str | None, default: int = 1) -> int | None:
    """The page number ``raw`` names (an ``int`` >= 1), ``default`` when ``raw`` is None, or None
    when ``raw`` is anything but ASCII digits without a leading zero (``""``, ``0``, ``01``,
    ``-1``, ``+1``, ``1.5``, ``2\\n``, ``１``, seven digits or more)."""
    if raw is None:
        return default
    return int(raw) if _PAGE_NUMBER.fullmatch(raw) else None
