"""One warning per interval instead of a traceback per request, for outages that repeat.

While Redis is down, django-redis (``IGNORE_EXCEPTIONS`` with ``DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS``,
config/settings/production.py) logs "Exception ignored" with a full traceback on every cache
call: several per request, thousands of lines a minute, burying everything else. The
``OncePerInterval`` filter on its logger (``LOGGING`` in config/settings/base.py) lets one record
through per ``seconds``, as a one-line WARNING naming the error and how many records it held back.
"""

import logging
import threading
import time


class OncePerInterval(logging.Filter):
    """A logging filter: at most one record per ``seconds`` (default 60) on the logger it is
    attached to; the one let through becomes a WARNING without traceback, whose message ends
    with the exception (class and text) and the number of records dropped since the last one."""

    def __init__(self, seconds: float = 60.0, name: str = "", clock=time.monotonic):
        super().__init__(name)
        self.seconds = float(seconds)
        self.clock = clock  # seconds, monotonic
        self._lock = threading.Lock()
        self._last = None
        self._dropped = 0

    def filter(self, record: logging.LogRecord) -> bool:
        now = self.clock()
        with self._lock:
            if self._last is not None and now - self._last < self.seconds:
                self._dropped += 1
                return False
            dropped, self._dropped, self._last = self._dropped, 0, now
        error = record.exc_info[1] if record.exc_info else None
        message = record.getMessage()
        if error is not None:
            message = f"{message}: {error.__class__.__name__}: {error}"
        if dropped:
            message = f"{message} ({dropped} similar record(s) in the last {self.seconds:g} s not logged)"
        record.msg, record.args = message, None
        record.exc_info, record.exc_text = None, None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True
