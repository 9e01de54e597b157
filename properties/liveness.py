"""Liveness models (issue 17): temporal properties under fairness, checked by tla-checker's
`--check-liveness` (tableau engine). They are named Live<Spec> (spec/lbdd/LiveLBDD.tla and its
cfgs), not MC<Spec>, and kept out of spec/manifest.json because
properties/tla.py runs safety models only (no `--check-liveness`, no `liveness_violation`
status); each model here states its expected verdict and explored-state count instead, checked
the same way (a passing model within half to twice its recorded states, a mutant rejected by its
property). See docs/tla.md, "Liveness"."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass

from pubsub_spec.properties.checks import NO_MISS
from pubsub_spec.properties.tla import SPEC, tla_binary


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
    proc = subprocess.run(
        [
            tla_binary(),
            m.module,
            "--config",
            m.cfg,
            "--check-liveness",
            "--json",
            "--allow-deadlock",
        ],
        cwd=SPEC / m.folder,
        capture_output=True,
        text=True,
        check=False,
        env=dict(os.environ, NO_COLOR="1"),
    )
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "{}"
    try:
        result = json.loads(last)
    except json.JSONDecodeError:
        return LiveRun(m, "error", 0, False, (proc.stderr.strip() or last)[-300:])
    status = str(result.get("status"))
    states = int(result.get("stats", {}).get("states_explored", 0))
    if m.expect == "pass":
        ok = status == "ok" and m.states / 2 <= states <= m.states * 2
        detail = f"holds ({states} distinct states)" if ok else f"{status}; {states} states"
    else:
        ok = status == "liveness_violation" and result.get("property") == m.expect
        detail = f"rejected: {m.expect} violated" if ok else f"NOT rejected ({status})"
    return LiveRun(m, status, states, ok, detail)
