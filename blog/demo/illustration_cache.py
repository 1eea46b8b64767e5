"""Drawn demo illustrations kept on disk, outside the repository, so they are drawn once.

``load_demo`` draws about 130 PNGs (a card image per article and the figures in the bodies);
drawing one takes about a quarter of a second, reading it back a millisecond. Files are named by
the SHA-256 of what decides their pixels: the description, seed and size, the source of
``blog/demo/illustrations.py`` and the Pillow version. Editing the drawing code therefore starts
a new set of files instead of serving stale ones (old files are left for the user to delete).
"""

import hashlib
import json
import logging
import os
import tempfile
from functools import cache
from pathlib import Path

from django.conf import settings

import PIL

from blog.demo import illustrations

log = logging.getLogger(__name__)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def cache_dir() -> Path | None:
    """The folder of cached PNGs: ``settings.DEMO_ILLUSTRATION_CACHE`` when set (an empty value
    turns the cache off: None), else ``$XDG_CACHE_HOME/cedana-blog/illustrations`` with
    ``~/.cache`` standing in for an unset ``XDG_CACHE_HOME``."""
    configured = getattr(settings, "DEMO_ILLUSTRATION_CACHE", None)
    if configured is not None:
        return Path(configured).expanduser() if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cedana-blog" / "illustrations"


@cache
def drawing_code_digest() -> str:
    """SHA-256 (hex) of the drawing module's source and the Pillow version that rasterises it."""
    digest = hashlib.sha256(Path(illustrations.__file__).read_bytes())
    digest.update(PIL.__version__.encode())
    return digest.hexdigest()


def cache_key(description: str, seed: str, size: tuple[int, int]) -> str:
    """The file stem (64 hex digits) for one drawing."""
    spec = json.dumps([description, seed, list(size), drawing_code_digest()], ensure_ascii=False)
    return hashlib.sha256(spec.encode("utf-8", "surrogatepass")).hexdigest()


def cached_png(description: str, *, seed: str, size: tuple[int, int], folder: Path | None = None) -> bytes:
    """The PNG bytes of ``illustrations.render_png(description, seed=seed, size=size)``, read from
    ``folder`` (default ``cache_dir()``) when drawn before, else drawn and stored there.

    A missing, unreadable or truncated file is drawn again; a folder that cannot be written
    (read-only home, full disk) only costs the drawing time: the error is logged, never raised.
    Files are written to a temporary name and renamed, so parallel loads never read half a file.
    """
    folder = folder if folder is not None else cache_dir()
    if folder is None:
        return illustrations.render_png(description, seed=seed, size=size)
    path = folder / f"{cache_key(description, seed, size)}.png"
    try:
        png = path.read_bytes()
    except OSError:
        png = b""
    if png.startswith(PNG_SIGNATURE) and png.endswith(b"IEND\xaeB`\x82"):
        return png
    png = illustrations.render_png(description, seed=seed, size=size)
    partial = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, suffix=".tmp", delete=False) as partial:
            partial.write(png)
        os.replace(partial.name, path)
    except OSError as error:
        log.warning("Illustration cache %s not written: %s", folder, error)
        if partial is not None:
            Path(partial.name).unlink(missing_ok=True)
    return png
