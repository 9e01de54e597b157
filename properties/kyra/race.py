"""Subscription propagation racing publications on the reference (the Python side of the TLA+
model spec/kyra/KyraRouting.tla, decision K-D12 in docs/kyra.md).

`race_trace` alternates subscribe and publish, each event matching the subscription just made
and published (almost) at once from a random server: with the driver's rule (a subscribe
completes when every SubMove and SubPropagate it caused has arrived) every event must reach
it; with `EarlyInstallKyra` (complete once the SubMoves arrive) events overtake the entries
and are missed, as in the TLA+ mutant MCKyraRouting_EarlyInstall."""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from typing import Any

from pubsub_spec.properties.verdict import CheckResult, Found, timed_row
from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.common.ops import Op, Publish, Subscribe, Timing, Trace
from pubsub_spec.reference.sim.run import Comparison, run_and_compare
from pubsub_spec.reference.sim.system import System

RACE_SCHEMA = Schema("race", (Attribute("x", "int", 0, 99), Attribute("y", "float", 0.0, 1.0)))


def race_trace(seed: int, servers: int = 30, pairs: int = 20) -> Trace:
    """`pairs` (subscribe, publish) pairs on `servers` servers; the event of each pair matches
    its subscription; publications follow subscriptions after 0.001 ms on average."""
    rng = random.Random(f"{seed}:kyra-race")
    ops: list[Op] = []
    for i in range(pairs):
        lo = rng.randrange(100)
        hi = min(99, lo + rng.randrange(40))
        who = f"n{rng.randrange(servers)}"
        ops.append(Subscribe(2 * i, Subscription(f"s{i}", who, "race", (Predicate("x", lo, hi),))))
        ev = Event(f"e{i}", f"n{rng.randrange(servers)}", "race", (("x", rng.randint(lo, hi)),))
        ops.append(Publish(2 * i + 1, ev))
    return Trace(
        (RACE_SCHEMA,),
        tuple(ops),
        initial_nodes=servers,
        seed=seed,
        timing=Timing(sub_interarrival_ms=1.0, pub_interarrival_ms=0.001),
        generator="kyra-race",
        trace_id=f"kyra-race-s{seed}",
    )


def check_race(make: Callable[[Trace], System[Any]], seeds: range = range(2)) -> Comparison:
    """The first disagreeing comparison over the seeds' race traces, else the last one."""
    cmp: Comparison | None = None
    for seed in seeds:
        _, cmp = run_and_compare(race_trace(seed), make)
        if not cmp.agree:
            return cmp
    assert cmp is not None
    return cmp


def _race_found(make: Callable[[Trace], System[Any]], mutant: bool) -> Found:
    c = check_race(make)
    if mutant:  # the early-install mutant must miss deliveries
        return 2, (f"{len(c.missed)} missed" if c.missed else None)
    return 2, (None if c.agree else c.summary())


def rows(examples: int = 0) -> list[CheckResult]:
    """Kyra, Siena and mcgroups against the oracle on the race traces of two seeds, and the
    early-install mutant rejected (it misses deliveries); the rows share the invariant of
    spec/kyra/KyraRouting.tla's model in spec/manifest.json. `examples` is not used: the
    traces are fixed."""
    from pubsub_spec.properties.kyra.mutants import EarlyInstallKyra
    from pubsub_spec.properties.tla import load_manifest
    from pubsub_spec.reference.kyra.info import INFOS

    label = next(m.invariant for m in load_manifest() if m.name == "MCKyraRouting")
    makes = [(info.name, info.variants[0].make, False) for info in INFOS]
    makes.append(("mutant early-install", EarlyInstallKyra, True))
    return [
        timed_row(
            label,
            "Hypothesis",
            f"race traces, {name}",
            "traces",
            partial(_race_found, make, broken),
            broken,
        )
        for name, make, broken in makes
    ]
