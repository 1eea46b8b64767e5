"""Screenshots of every reader page type (home, blog index, a topic, an article, an author,
search results, the 404 page and the theme chooser) at a phone width (390 px) and a desktop width
(1440 px), in the light and the dark theme, saved as ``docs/screenshots/reader-<page>-<device>.png``
and ``reader-<page>-<device>-dark.png``. The dark shots use the device preference
(``prefers-color-scheme: dark``), which the site follows when the reader has not chosen a theme.

Usage (``make screenshots``)::

    .venv/bin/python docs/screenshots/capture_reader.py [--base-url http://127.0.0.1:8510]

Without ``--base-url`` it builds the demo site in a temporary SQLite database and media folder,
serves it with ``manage.py runserver`` on 127.0.0.1:8510 (``--port``), and stops the server when
done. Drives Debian's Chromium (``CHROMIUM_PATH``, default /usr/bin/chromium) through
Playwright. Each shot is the top of the page, at most 1800 px tall, reduced to 256 colours so the
files stay small. Exits non-zero if the server does not answer within 120 s or a page fails.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from io import BytesIO
from pathlib import Path

from PIL import Image
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent
# {name: (path, expected status)}
PAGES = {
    "home": ("/", 200),
    "index": ("/blog/", 200),
    "topic": ("/blog/gpu-costs/", 200),
    "article": ("/blog/how-much-utilization-improvement-do-you-need-to-break-even-on-gpu-checkpointing/", 200),
    "author": ("/blog/authors/cedana-editorial/", 200),
    "search": ("/search/?query=checkpoint", 200),
    "404": ("/blog/no-such-page/", 404),
    "theme": ("/theme/?next=/blog/", 200),
}
THEMES = {"light": "", "dark": "-dark"}
WIDTHS = {"phone": 390, "desktop": 1440}
MAX_HEIGHT = 1800
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def wait_for(url: str, timeout: float = 120.0) -> None:
    """Return once ``url`` answers 200; raise TimeoutError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 - our loopback server
                if response.status == 200:
                    return
        except OSError:
            time.sleep(1)
    raise TimeoutError(f"{url} did not answer within {timeout:.0f} s")


def start_demo_server(port: int, workdir: Path) -> subprocess.Popen:
    """Migrate and load the demo into ``workdir``, then start runserver (DEBUG serves media)."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.dev",
        "DATABASE_URL": f"sqlite:///{workdir / 'db.sqlite3'}",
        "MEDIA_ROOT": str(workdir / "media"),
        "DEBUG": "true",
    }
    manage = [sys.executable, str(ROOT / "manage.py")]
    for command in (["migrate", "--noinput", "-v0"], ["load_demo", "--no-users"]):
        done = subprocess.run([*manage, *command], env=env, cwd=ROOT, capture_output=True, text=True)  # noqa: S603
        if done.returncode:
            raise RuntimeError(f"manage.py {command[0]} failed:\n{done.stderr}")
    return subprocess.Popen(  # noqa: S603 - our own manage.py
        [*manage, "runserver", f"127.0.0.1:{port}", "--noreload"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def capture(base_url: str) -> list[Path]:
    """Save every page at every width in both themes; returns the files written."""
    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"), args=CHROMIUM_FLAGS
        )
        try:
            for theme, suffix in THEMES.items():
                for device, width in WIDTHS.items():
                    page = browser.new_page(
                        viewport={"width": width, "height": 900}, device_scale_factor=1, color_scheme=theme
                    )
                    for name, (path, status) in PAGES.items():
                        target = OUT / f"reader-{name}-{device}{suffix}.png"
                        written.append(shoot(page, base_url + path, status, width, target))
                    page.close()
        finally:
            browser.close()
    return written


def shoot(page, url: str, status: int, width: int, target: Path) -> Path:
    """Load ``url`` (raising unless it answers ``status``) and save its top as ``target``."""
    response = page.goto(url, wait_until="load")
    if response is None or response.status != status:
        raise RuntimeError(f"{url} answered {response and response.status}, not {status}")
    # Lazy images below the fold: bring them in before the shot.
    page.evaluate("document.querySelectorAll('img[loading=lazy]').forEach(i => i.loading = 'eager')")
    page.wait_for_load_state("networkidle")
    height = min(page.evaluate("document.documentElement.scrollHeight"), MAX_HEIGHT)
    png = page.screenshot(full_page=True, clip={"x": 0, "y": 0, "width": width, "height": height})
    with Image.open(BytesIO(png)) as shot:
        shot.convert("RGB").quantize(colors=256).save(target, optimize=True)
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", help="a running site with the demo content (default: start one)")
    parser.add_argument("--port", type=int, default=8510, help="port for the server this script starts")
    args = parser.parse_args()
    if args.base_url:
        return report(capture(args.base_url.rstrip("/")))
    with tempfile.TemporaryDirectory(prefix="cedana-screenshots-") as workdir:
        server = start_demo_server(args.port, Path(workdir))
        try:
            base_url = f"http://127.0.0.1:{args.port}"
            wait_for(base_url + "/blog/")
            return report(capture(base_url))
        finally:
            server.terminate()
            server.wait(timeout=30)


def report(files: list[Path]) -> int:
    for file in files:
        sys.stdout.write(f"{file.relative_to(ROOT)}  {file.stat().st_size // 1024} KB\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
