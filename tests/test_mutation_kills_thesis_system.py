"""Tests that kill mutants of reference/thesis/system.py found by scripts/mutation.py (issue 17,
docs/mutation.md)."""

from __future__ import annotations
