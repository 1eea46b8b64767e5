"""``benchmarks/cold_pages.py --as-served`` runs each checkout's requests as its gunicorn worker
does: in one frame-stack chunk only where the checkout's ``gunicorn.conf.py`` names our worker."""

from pathlib import Path

import pytest

from .benchmark_scripts import load_benchmark

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def cold_pages():
    return load_benchmark("cold_pages.py")


def test_this_checkout_is_served_in_one_stack_chunk(cold_pages):
    assert cold_pages.served_in_one_stack_chunk(ROOT) is True


@pytest.mark.parametrize(
    "conf",
    [
        None,  # b41f45e and older: no gunicorn.conf.py at all
        'bind = "127.0.0.1:8000"\n',  # gunicorn's default worker
        'worker_class = "sync"\n',
        'worker_class = "gthread"\nthreads = 4\n',
    ],
)
def test_other_checkouts_are_served_plainly(cold_pages, tmp_path, conf):
    if conf is not None:
        (tmp_path / "gunicorn.conf.py").write_text(conf)
    assert cold_pages.served_in_one_stack_chunk(tmp_path) is False
