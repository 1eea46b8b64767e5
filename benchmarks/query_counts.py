"""Print the SQL query count of each benchmarked page as JSON: ``{"path": count, ...}``.

Usage: python benchmarks/query_counts.py PATH [PATH ...] (with the benchmark's environment;
PAGE_CACHE_SECONDS=0 so every request renders). Each path is requested once first, so image
renditions exist and Wagtail's site cache is warm, then counted.
"""

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402


def main(paths: list[str]) -> None:
    client = Client(HTTP_HOST="127.0.0.1")
    counts = {}
    for path in paths:
        client.get(path)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(path)
        counts[path] = len(queries) if response.status_code == 200 else f"HTTP {response.status_code}"
    print(json.dumps(counts))


if __name__ == "__main__":
    main(sys.argv[1:])
