"""Whether a Redis server answers, for the tests that need a real one (CI starts it)."""

import socket
import urllib.parse


def redis_answers(url: str) -> bool:
    """True if the Redis at ``url`` (``redis://host:port/db``) answers PING within a second."""
    parsed = urllib.parse.urlparse(url)
    try:
        with socket.create_connection((parsed.hostname, parsed.port or 6379), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False
