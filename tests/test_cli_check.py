"""`pubsub-spec check` in process: the table and its selection. Every row, every checker, is run
from the installed wheel by tests/test_packaging.py."""

from __future__ import annotations

import os

import pytest

from pubsub_spec.cli import main
from pubsub_spec.properties.tla import tla_binary


def test_check_passes_with_all_checkers(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        tla_binary()
        sections = "z3,tla"
    except FileNotFoundError:
        if os.environ.get("CI"):
            raise
        sections = "z3"
    # the fast models, one per spec of the thesis and LBDD, show the table
    fast = "MCCutoffRemap,MCCutoffRemap_ClosedSegments,MCTwoDTree_NoFifo,MCLBDD_WithinBucket"
    code = main(["check", "--only", sections, "--tla-models", fast])
    out = capsys.readouterr().out
    assert code == 0, out
    if "tla" in sections:
        for name in fast.split(","):
            assert name in out
    assert " 0 failed" in out and "FAIL" not in out
    for invariant in (
        "one-way dissemination",
        "no missed matches under growth-only trees",
        "single delivery with cut-off remapping",
        "bounded tree depth",
        "Kyra: zones, trees and filters",
        "Tam: intervals, digests, keys",
    ):
        assert invariant in out
    assert "mutant filter restriction soundness" in out


def test_check_rejects_an_unknown_section() -> None:
    assert main(["check", "--only", "nope"]) == 2


def test_check_names_an_unknown_tla_model(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        tla_binary()
    except FileNotFoundError:
        pytest.skip("tla-checker is not installed")
    code = main(["check", "--only", "tla", "--tla-models", "MCNoSuchModel"])
    out = capsys.readouterr().out
    assert code == 2  # bad input (docs/ci.md, exit codes), before anything runs
    assert "MCNoSuchModel" in out


def test_check_selects_a_trace_row_without_any_model(capsys: pytest.CaptureFixture[str]) -> None:
    """A selector matching no TLA+ model of the manifest still reaches the section's trace
    validation rows (it used to drop the whole section and select nothing)."""
    try:
        tla_binary()
    except FileNotFoundError:
        pytest.skip("tla-checker is not installed")
    row = "KyraRouting: runs from the observation log"
    code = main(["check", "--only", f"tla:{row}"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert row in out and "TLA+ (tla-checker)" not in out and "\n1 passed, 0 failed" in out
