"""Tests that kill mutants of reference/overlay/pastry.py and reference/thesis/config.py found by
scripts/mutation.py (issue 17, docs/mutation.md)."""

from __future__ import annotations
