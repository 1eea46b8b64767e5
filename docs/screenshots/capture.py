"""Take admin screenshots with headless Chromium, driven over the DevTools protocol on a pipe.

Usage (the site must already be served on a loopback address)::

    python docs/screenshots/capture.py --base-url http://127.0.0.1:8106 --session SESSION_KEY \\
        dashboard=/admin/ articles=/admin/blog/articlepage/ ...

Each ``name=/path`` is loaded with the Django session cookie set and saved as
``docs/screenshots/<name>.png`` (1440 px wide, the full page height up to 2400 px). Uses only the
standard library: Chromium's ``--remote-debugging-pipe`` reads NUL-terminated JSON on fd 3 and
answers on fd 4. Exits non-zero if Chromium fails or a page does not load within 30 seconds.
"""

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--remote-debugging-pipe",
]
WIDTH, MAX_HEIGHT = 1440, 2400
TIMEOUT = 30.0


class DevTools:
    """A minimal DevTools protocol client over Chromium's debugging pipe."""

    def __init__(self, chromium: str, user_data_dir: str):
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # Chromium talks on fds 3 and 4; the shell puts our pipe ends there before exec'ing it.
        command = f'exec "$0" "$@" 3<&{to_browser_r} 4>&{from_browser_w}'
        self.process = subprocess.Popen(  # noqa: S603 - fixed executable and flags
            ["/bin/sh", "-c", command, chromium, *CHROMIUM_FLAGS, f"--user-data-dir={user_data_dir}", "about:blank"],
            pass_fds=(to_browser_r, from_browser_w),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0

    def call(self, method: str, session_id: str | None = None, **params):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session_id:
            message["sessionId"] = session_id
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            while b"\0" not in self._buffer:
                chunk = os.read(self._from_browser, 1 << 16)
                if not chunk:
                    raise RuntimeError("Chromium closed the pipe")
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
        raise TimeoutError(method)

    def close(self):
        try:
            self.call("Browser.close")
        finally:
            self.process.wait(timeout=10)


def set_viewport(devtools: DevTools, sid: str, height: int) -> None:
    metrics = {"width": WIDTH, "height": height, "deviceScaleFactor": 1, "mobile": False}
    devtools.call("Emulation.setDeviceMetricsOverride", sid, **metrics)


def capture(devtools: DevTools, url: str, out: Path) -> None:
    target = devtools.call("Target.createTarget", url="about:blank")["targetId"]
    sid = devtools.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
    devtools.call(
        "Emulation.setDeviceMetricsOverride", sid, width=WIDTH, height=900, deviceScaleFactor=1, mobile=False
    )
    devtools.call("Page.navigate", sid, url=url)
    deadline = time.monotonic() + TIMEOUT
    while True:
        state = devtools.call("Runtime.evaluate", sid, expression="document.readyState", returnByValue=True)
        if state["result"].get("value") == "complete":
            break
        if time.monotonic() > deadline:
            raise TimeoutError(url)
        time.sleep(0.2)
    time.sleep(1.0)  # let the admin's scripts lay out the page (sidebar, counters)
    # The admin scrolls inside <main>, not the document: measure the tallest scroller.
    tallest = "Math.max(...[...document.querySelectorAll('html, body, main')].map((e) => e.scrollHeight))"
    height = devtools.call("Runtime.evaluate", sid, expression=tallest, returnByValue=True)["result"]["value"]
    height = min(int(height), MAX_HEIGHT)
    devtools.call(
        "Emulation.setDeviceMetricsOverride", sid, width=WIDTH, height=height, deviceScaleFactor=1, mobile=False
    )
    time.sleep(0.3)
    shot = devtools.call("Page.captureScreenshot", sid, format="png")
    out.write_bytes(base64.b64decode(shot["data"]))
    devtools.call("Target.closeTarget", targetId=target)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8106")
    parser.add_argument("--session", required=True, help="a Django session key for a logged-in user")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("pages", nargs="+", help="name=/path pairs")
    args = parser.parse_args(argv)
    host = urlsplit(args.base_url).hostname
    if host not in {"127.0.0.1", "localhost", "::1"}:
        parser.error("screenshots are taken from a loopback server only")

    with tempfile.TemporaryDirectory(prefix="chromium-shots-") as profile:
        devtools = DevTools(args.chromium, profile)
        try:
            devtools.call(
                "Storage.setCookies",
                cookies=[{"name": "sessionid", "value": args.session, "domain": host, "path": "/", "httpOnly": True}],
            )
            for pair in args.pages:
                name, _, path = pair.partition("=")
                out = args.out / f"{name}.png"
                capture(devtools, args.base_url.rstrip("/") + path, out)
                sys.stdout.write(f"{out} ({out.stat().st_size} bytes)\n")
        finally:
            devtools.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
