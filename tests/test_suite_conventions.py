"""How the suite itself runs: reproducible property tests in CI."""

import os

from hypothesis import settings

from .test_security_hostile_input import HYPOTHESIS


def test_property_tests_are_derandomised_in_ci_only():
    in_ci = bool(os.environ.get("CI"))
    assert settings.default.derandomize is in_ci
    assert HYPOTHESIS.derandomize is in_ci  # a module's own settings inherit the profile
    assert settings.default.database is None
