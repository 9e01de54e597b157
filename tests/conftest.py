"""Hypothesis profiles: `ci` (derandomized, no deadline: CI runs the same examples every time)
and `dev` (random, more examples), chosen by HYPOTHESIS_PROFILE (scripts/test.sh sets ci)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "dev", parent=settings.get_profile("ci"), derandomize=False, max_examples=300
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest tests (marked slow, e.g. tests/test_packaging.py at several minutes) first, so
    that `-n 2 --dist worksteal` (scripts/test.sh) starts them at once and the other worker
    takes over the rest of the queue: the run ends near total/2, not slow test + the rest."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable
