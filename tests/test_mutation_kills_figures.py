"""Tests that kill mutants of reference/thesis/figures.py found by scripts/mutation.py
(docs/mutation.md). Each pins behaviour the thesis (chapter 4) or docs/figures state, not an
accident of the code."""

from __future__ import annotations
