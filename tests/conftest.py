"""Hypothesis profiles: `ci` (derandomized, no deadline: CI runs the same examples every time)
and `dev` (random, more examples), chosen by HYPOTHESIS_PROFILE (scripts/test.sh sets ci)."""

from __future__ import annotations

import os

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
