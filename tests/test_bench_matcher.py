"""benchmarks/bench_matcher.py: the workload has REIN's shape, the brute-force check catches a
disagreement, and a small run prints the table with every matcher agreeing."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import bench_matcher as bm


def test_workload_has_reins_shape() -> None:
    w = bm.workload(200, seed=3, events=7)
    assert len(w.ids) == 200 and w.sub.size == 200 * bm.PER_SUB
    attrs = w.attr.reshape(200, bm.PER_SUB)
    assert all(len(set(row)) == bm.PER_SUB for row in attrs.tolist())  # distinct attributes
    assert np.all(w.hi - w.lo == bm.WIDTH) and w.lo.min() >= 0 and w.hi.max() <= bm.DOMAIN - 1
    assert np.all(w.lo == np.floor(w.lo))  # integer bounds
    assert len(w.events) == 7 and all(len(e.values) == bm.ATTRS for e in w.events)
    again = bm.workload(200, seed=3, events=7)
    assert np.array_equal(again.lo, w.lo) and again.events == w.events  # seeded


def test_brute_force_catches_a_wrong_matcher(monkeypatch: pytest.MonkeyPatch) -> None:
    w = bm.workload(400, seed=4, events=20)
    truth = bm.brute_force(w)
    assert bm.run_bucket(w, truth, repeat=1).ok
    wrong = [t[1:] if t.size else np.array([0]) for t in truth]
    assert not bm.run_bucket(w, wrong, repeat=1).ok
    assert bm.oracle_agrees(w, truth, 5) and not bm.oracle_agrees(w, wrong, 20)


def test_a_small_run_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--sizes", "1000", "--repeat", "1", "--oracle-events", "3", "--conformance", "1"]
    assert bm.main(argv) == 0
    out = capsys.readouterr().out
    assert "same fingerprints on every trace: yes" in out
    assert "| 1000 | bucket (oracle-indexed) |" in out and "| 1000 | bitset (replaced) |" in out
    assert "DISAGREES" not in out and "Qian et al., REIN" in out
