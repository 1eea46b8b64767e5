"""``make bench`` unpacks bakerydemo's source tarball safely, with or without tarfile's filters
(Python 3.11.4 added them; Debian 12's 3.11.2, which CI uses, has none)."""

import io
import tarfile
from pathlib import Path

import pytest

from .benchmark_scripts import load_benchmark


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("bench.py")


def tarball(path: Path, *members: tuple[str, bytes | None, bytes]) -> Path:
    """A .tar.gz of ``(name, link target or None, content)`` members."""
    with tarfile.open(path, "w:gz") as archive:
        for name, link, content in members:
            info = tarfile.TarInfo(name)
            if link is None:
                info.size = len(content)
                archive.addfile(info, io.BytesIO(content))
            else:
                info.type, info.linkname = tarfile.SYMTYPE, link.decode()
                archive.addfile(info)
    return path


@pytest.fixture(params=["as this Python unpacks", "without tarfile's filters"])
def filters(request, monkeypatch):
    if request.param == "without tarfile's filters":
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    return request.param


def test_the_source_is_unpacked(bench, filters, tmp_path):
    source = tarball(tmp_path / "ok.tar.gz", ("bakerydemo-8e2b625/manage.py", None, b"# manage"))
    into = tmp_path / "into"
    into.mkdir()
    bench.extract(source, into)
    assert (into / "bakerydemo-8e2b625" / "manage.py").read_bytes() == b"# manage"


@pytest.mark.parametrize("kind", ["parent folder", "absolute path", "link out of the folder"])
def test_nothing_lands_outside_the_folder(bench, filters, tmp_path, kind):
    """Refused with a message, or (tarfile's filter, an absolute path) put inside the folder."""
    outside = tmp_path / "outside.py"
    member = {
        "parent folder": ("../outside.py", None, b"x"),
        "absolute path": (str(outside), None, b"x"),
        "link out of the folder": ("bakerydemo/link", b"/etc/passwd", b""),
    }[kind]
    source = tarball(tmp_path / "bad.tar.gz", ("bakerydemo/manage.py", None, b"# manage"), member)
    into = tmp_path / "into"
    into.mkdir()
    try:
        bench.extract(source, into)
    except SystemExit as refused:
        assert "refusing" in str(refused)
    else:
        assert kind == "absolute path" and filters == "as this Python unpacks" and hasattr(tarfile, "data_filter")
    assert not outside.exists()
    assert not (into / "bakerydemo" / "link").is_symlink()
