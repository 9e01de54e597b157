"""Liveness models: temporal properties under fairness, checked by tla-checker's
`--check-liveness` (tableau engine). They are named Live<Spec> (spec/lbdd/LiveLBDD.tla and its
cfgs), not MC<Spec>, and kept out of spec/manifest.json because
properties/tla.py runs safety models only (no `--check-liveness`, no `liveness_violation`
status); each model here states its expected verdict and explored-state count instead, checked
the same way (a passing model within half to twice its recorded states, a mutant rejected by its
property). See docs/tla.md, "Liveness"."""

from __future__ import annotations

import time
from dataclasses import dataclass

from pubsub_spec.properties.checks import NO_MISS
from pubsub_spec.properties.tla import SPEC, run_tla, within_recorded
from pubsub_spec.properties.verdict import CheckResult, judged


@dataclass(frozen=True)
class LiveModel:
    name: str
    folder: str
    module: str
    cfg: str
    expect: str  # "pass" or the property that must be violated
    states: int
    # the design invariant the row belongs to (pubsub-spec check's first column)
    invariant: str = "one-way dissemination"


LIVENESS_MODELS = (
    # every node eventually receives, no failure, weak fairness of Start and Forward(n)
    LiveModel("LiveLBDD", "lbdd", "LiveLBDD.tla", "LiveLBDD.cfg", "pass", 18),
    # MUTANT: Algorithm 2 slices of m div k targets each leave nodes out
    LiveModel(
        "LiveLBDD_EqualSlice",
        "lbdd",
        "LiveLBDD.tla",
        "LiveLBDD_EqualSlice.cfg",
        "EventuallyDelivered",
        0,
    ),
    # MUTANT: the same spec without fairness may stutter for ever
    LiveModel(
        "LiveLBDD_NoFairness",
        "lbdd",
        "LiveLBDD.tla",
        "LiveLBDD_NoFairness.cfg",
        "EventuallyDelivered",
        0,
    ),
)

# TwoDTree (spec/thesis/LiveTwoDTree.tla): kept apart from LIVENESS_MODELS until
# pubsub_spec/cmd_check.py labels rows with `m.invariant` and tests/test_liveness.py accepts a
# second property; tested in tests/test_trace_validation.py meanwhile.
TREE_LIVENESS_MODELS = (
    # every split eventually confirmed, weak fairness of TransferSub receipt and confirmation
    LiveModel(
        "LiveTwoDTree", "thesis", "LiveTwoDTree.tla", "LiveTwoDTree.cfg", "pass", 856, NO_MISS
    ),
    # MUTANT: no fairness: a TransferSub may stay in flight for ever
    LiveModel(
        "LiveTwoDTree_NoFairness",
        "thesis",
        "LiveTwoDTree.tla",
        "LiveTwoDTree_NoFairness.cfg",
        "SplitConfirmed",
        0,
        NO_MISS,
    ),
    # MUTANT: fairness of the TransferSubs only: the confirmations may stay in flight
    LiveModel(
        "LiveTwoDTree_NoCreatedFairness",
        "thesis",
        "LiveTwoDTree.tla",
        "LiveTwoDTree_NoCreatedFairness.cfg",
        "SplitConfirmed",
        0,
        NO_MISS,
    ),
    # every matching publication eventually delivered (and every split confirmed), weak
    # fairness of every receipt but the LeafUpdates'
    LiveModel(
        "LiveTwoDTreeDelivery",
        "thesis",
        "LiveTwoDTree.tla",
        "LiveTwoDTreeDelivery.cfg",
        "pass",
        2622,
        NO_MISS,
    ),
    # MUTANT: no fairness for the probes: one may stay in flight for ever
    LiveModel(
        "LiveTwoDTreeDelivery_NoProbeFairness",
        "thesis",
        "LiveTwoDTree.tla",
        "LiveTwoDTreeDelivery_NoProbeFairness.cfg",
        "EventuallyDelivered",
        0,
        NO_MISS,
    ),
)


@dataclass(frozen=True)
class LiveRun:
    model: LiveModel
    status: str
    states: int
    ok: bool
    detail: str


def run_live(m: LiveModel) -> LiveRun:
    out = run_tla(m.module, m.cfg, SPEC / m.folder, ("--check-liveness",))
    if out.ended != "finished":
        return LiveRun(m, "error", 0, False, out.text or out.ended)
    status = str(out.result.get("status"))
    states = int(out.result.get("stats", {}).get("states_explored", 0))
    if m.expect == "pass":
        ok = status == "ok" and within_recorded(states, m.states)
        detail = f"holds ({states} distinct states)" if ok else f"{status}; {states} states"
    else:
        violated = status == "liveness_violation"
        ok, detail = judged(
            f"{m.expect} violated" if violated else None, True,
            out.result.get("property") == m.expect,
        )  # fmt: skip
        if not ok:
            detail = f"NOT rejected ({status})"
    return LiveRun(m, status, states, ok, detail)


def _rows(models: tuple[LiveModel, ...]) -> list[CheckResult]:
    rows = []
    for m in models:
        start = time.monotonic()
        r = run_live(m)
        rows.append(
            CheckResult(m.invariant, "TLA+ liveness", m.name, r.states, "states",
                        time.monotonic() - start, r.ok, r.detail)
        )  # fmt: skip
    return rows


def lbdd_rows(examples: int = 0) -> list[CheckResult]:
    """The LBDD liveness models as rows of `pubsub-spec check` (their state counts are fixed:
    `examples` is not used)."""
    return _rows(LIVENESS_MODELS)


def thesis_rows(examples: int = 0) -> list[CheckResult]:
    """The 2d-tree's liveness models as rows of `pubsub-spec check`."""
    return _rows(TREE_LIVENESS_MODELS)
