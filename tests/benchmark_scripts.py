"""The scripts under ``benchmarks/`` loaded as modules for their tests (they are run by hand or
by ``make bench``, not imported by the site)."""

import importlib.util
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def load_benchmark(filename: str) -> ModuleType:
    """``benchmarks/<filename>`` as a fresh module (e.g. ``"bench.py"``)."""
    spec = importlib.util.spec_from_file_location(f"{Path(filename).stem}_under_test", BENCHMARKS / filename)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
