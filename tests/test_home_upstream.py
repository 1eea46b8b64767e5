"""One test per upstream workaround in home/upstream/: each asserts that the upstream defect or
missing setting still exists, so that an upgrade that fixes it fails here and the workaround is
deleted (docs/upstream.md has the issue texts)."""

import inspect

from willow.plugins.pillow import PillowImage

from home.upstream import willow


def test_willow_save_as_avif_still_has_no_speed_parameter():
    """Willow saves AVIF at Pillow's default encoder speed with no way to choose it; once its
    ``save_as_avif`` accepts ``speed``, drop home/upstream/willow.py and pass the setting."""
    assert "speed" not in inspect.signature(willow.WILLOW_SAVE_AS_AVIF).parameters


def test_our_avif_operation_is_installed():
    assert PillowImage.save_as_avif is willow.save_as_avif
