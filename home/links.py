"""The one check for links editors type: call-to-action buttons, rich text, header and footer.

A link is a site path (``/blog/``), a fragment (``#costs``) or a full ``http(s)://``,
``mailto:`` or ``tel:`` address. Never ``javascript:`` and friends, and never a scheme-relative
path, which looks like a site path but leads to another host: ``//evil.example``, and every
spelling browsers read the same way. Browsers parse links by the WHATWG URL standard
(https://url.spec.whatwg.org/#concept-basic-url-parser), which removes tabs and newlines
anywhere in the URL and reads ``\\`` as ``/`` in http(s) URLs, so ``/\\evil.example``,
``\\\\evil.example`` and ``/<tab>/evil.example`` all lead to evil.example.
"""

import re

from django.core.exceptions import ValidationError

LINK_MESSAGE = "Enter a site path starting with / or a full http(s)://, mailto: or tel: address."
OTHER_HOST_MESSAGE = (
    "Enter a site path starting with / (a single slash, e.g. /blog/): this link leads to another website. "
    "For another website, enter its full https:// address."
)
CONTROL_MESSAGE = "Remove the tabs, line breaks or other control characters from the link."

ALLOWED_START = re.compile(r"(/(?!/)|#|https?://|mailto:|tel:)", re.IGNORECASE)
# What the URL parser removes (tab, LF, CR) or refuses; any of them in a link is a paste error.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]")


def as_browsers_read(url: str) -> str:
    """``url`` as a browser's URL parser reads it before resolving: leading and trailing C0
    controls and spaces stripped, tabs and newlines removed, ``\\`` read as ``/`` (WHATWG URL,
    "basic URL parser", for the http(s) pages of this site)."""
    url = url.strip("".join(chr(code) for code in range(0x21)))
    return re.sub(r"[\t\n\r]", "", url).replace("\\", "/")


def is_other_host_path(url: str) -> bool:
    """True when ``url`` is a scheme-relative path, in any spelling (``//host``, ``/\\host``,
    ``\\\\host``, with tabs or newlines inside): it leads to another host."""
    return as_browsers_read(url).startswith("//")


def validate_link(value: str) -> None:
    """Django validator for a link an editor types (see the module docstring for the rule).

    Raises ValidationError with a message saying what to fix: control characters, a
    scheme-relative path, or any other scheme or form.
    """
    if CONTROL_CHARACTERS.search(value):
        raise ValidationError(CONTROL_MESSAGE, code="invalid")
    if is_other_host_path(value):
        raise ValidationError(OTHER_HOST_MESSAGE, code="invalid")
    if not ALLOWED_START.match(value):
        raise ValidationError(LINK_MESSAGE, code="invalid")
