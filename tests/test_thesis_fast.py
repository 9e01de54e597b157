"""The fast engine (the thesis system's handlers on reference/thesis/substrate_fast.py) is the
reference run bit for bit (decision V-FAST, docs/thesis.md "Speed"): the
same event-log hash, the same deliveries in the same order, the same metrics (every counter,
every latency in order, the 2d-tree's figures) and the same simulated time, on generated
workloads with churn and every probe routing and delivery mode, on the conformance generators,
with cut-off, widening, lost LeafUpdates, proximity routing and a change of interest. Mutants
of the fast substrate (a stale cache, a wrong leaf form) are caught by the same comparison."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pubsub_spec.cli import main
from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.properties.thesis.strategies import workloads
from pubsub_spec.reference.common.model import Event, Predicate, Subscription
from pubsub_spec.reference.common.ops import Publish, Subscribe, Trace, Unsubscribe
from pubsub_spec.reference.common.oracle import expected_deliveries
from pubsub_spec.reference.sim.engine import Engine
from pubsub_spec.reference.sim.run import Driver, RunResult, run_trace
from pubsub_spec.reference.thesis.config import config_of, thesis_preset, with_config
from pubsub_spec.reference.thesis.substrate import Group, Item, Timer
from pubsub_spec.reference.thesis.substrate_fast import (
    FastEngine,
    FastSubstrate,
    FastTwoDTreeSystem,
)
from pubsub_spec.reference.thesis.system import TwoDTreeSystem
from pubsub_spec.reference.thesis.tree import TreeNode
from pubsub_spec.reference.thesis.workload import thesis_trace

# (probe routing, event delivery): every combination the thesis system takes
MODES = [
    (probe, delivery)
    for probe in ("unicast", "multicast")
    for delivery in ("unicast", "grouped", "lbdd")
]


def _run(trace: Trace, cls: type[TwoDTreeSystem]) -> RunResult[Any]:
    return run_trace(trace, cls.for_trace, check=False)


def _differences(trace: Trace, fast_cls: type[TwoDTreeSystem] = FastTwoDTreeSystem) -> list[str]:
    """What differs between the reference's run of the trace and the fast engine's."""
    ref, fast = _run(trace, TwoDTreeSystem), _run(trace, fast_cls)
    out = [
        what
        for what, a, b in (
            ("event-log hash", ref.event_log_hash, fast.event_log_hash),
            ("deliveries", ref.deliveries, fast.deliveries),
            ("simulated time", ref.sim_time_ms, fast.sim_time_ms),
            ("processed", ref.system.engine.processed, fast.system.engine.processed),
        )
        if a != b
    ]
    ref_m, fast_m = vars(ref.metrics), vars(fast.metrics)
    out += [f"metrics.{k}" for k in ref_m if ref_m[k] != fast_m[k]]
    return out


def _with_modes(trace: Trace, probe: str, delivery: str) -> Trace:
    return with_config(trace, replace(config_of(trace), probe=probe, delivery=delivery))  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(workloads(), st.sampled_from(MODES))
def test_same_run_as_the_reference_on_generated_workloads(
    trace: Trace, modes: tuple[str, str]
) -> None:
    assert _differences(_with_modes(trace, *modes)) == []


@pytest.mark.parametrize("modes", MODES, ids="/".join)
def test_same_run_on_every_conformance_generator(modes: tuple[str, str]) -> None:
    for name in sorted(GENERATORS):
        for index in range(2):
            trace = GENERATORS[name](5, index, "tiny")
            assert _differences(_with_modes(trace, *modes)) == [], (name, index)


@pytest.mark.parametrize("proximity", [False, True])
def test_same_run_with_the_thesis_preset_and_proximity_routing(proximity: bool) -> None:
    trace = thesis_trace(120, 3, 150, seed=4)
    config = replace(thesis_preset(trace.schemas), proximity_routing=proximity)
    trace = with_config(trace, config)
    assert _differences(trace) == []
    run = _run(trace, FastTwoDTreeSystem)
    # the run exercises what the fast paths replace
    m = run.system.metrics
    assert m.sends["EventDelivery"] > 1000 and m.sends["ProbePub"] > 1000
    assert m.splits > 10 and m.jump_backs > 0 and m.dedup_discards > 0
    assert sorted(run.deliveries) == expected_deliveries(trace)


def test_same_run_through_a_change_of_interest() -> None:
    """A subscription replaced in the middle of a run (§3.3.1): the leaf cache and the
    original subscription at the subscriber both change."""
    trace = thesis_trace(30, 2, 0, seed=6)
    runs = []
    for cls in (TwoDTreeSystem, FastTwoDTreeSystem):
        driver = Driver(trace, cls.for_trace(trace))
        for op in trace.ops:
            driver.apply(op)
        system = driver.system
        sub = next(op.sub for op in trace.ops if isinstance(op, Subscribe))
        seq = len(trace.ops) + 1
        wide = Subscription(sub.id, sub.subscriber, sub.schema, sub.predicates[:1])
        attr = trace.schemas[0].by_name[wide.predicates[0].attribute]
        narrow = replace(wide, predicates=(Predicate(attr.name, attr.min, attr.min),))
        for i, new in enumerate((wide, narrow)):
            system.change_interest(new, seq)
            driver.apply(Publish(seq + 1, _event(trace, f"x{i}", sub.subscriber)))
            seq += 2
        runs.append(driver.finish())
    ref, fast = runs
    assert ref.event_log_hash == fast.event_log_hash
    assert ref.deliveries == fast.deliveries and ref.metrics == fast.metrics


def _event(trace: Trace, eid: str, publisher: str) -> Event:
    schema = trace.schemas[0]
    return Event(eid, publisher, schema.name, tuple((a.name, a.min) for a in schema.attributes))


# -- mutants: each a plausible slip in the fast substrate, each caught by the comparison -----
class _KeepsLeaves(FastSubstrate):
    """A leaf's points are read once and never again (`points_changed` ignored)."""

    def points_changed(self, node: TreeNode) -> None:
        pass


class _StaleLeaves(FastTwoDTreeSystem):
    substrate_class = _KeepsLeaves


class _KeepsRoutes(FastSubstrate):
    """The routes (hops and latency of a send) are kept when a peer joins or becomes ready;
    homes are still looked up afresh, so messages still arrive where they should."""

    def membership_changed(self) -> None:
        self._homes.clear()
        self._first_hops.clear()


class _StaleRoutes(FastTwoDTreeSystem):
    substrate_class = _KeepsRoutes


class _OriginalLeaves(FastSubstrate):
    """The leaf tests the subscriber's original subscription instead of the stored (widened,
    §3.3) one: no false positive reaches the subscriber's filter."""

    def leaf(self, node: TreeNode) -> list[Group]:
        subs = self.system.subs
        return [
            (schema, base, [(*e[:7], _preds(subs[e[6]].original)) for e in entries])
            for schema, base, entries in super().leaf(node)
        ]


def _preds(sub: Subscription) -> tuple[tuple[str, float, float], ...]:
    return tuple((p.attribute, p.lo, p.hi) for p in sub.predicates)


class _TestsTheOriginal(FastTwoDTreeSystem):
    substrate_class = _OriginalLeaves


class _DeadSubscribers(FastTwoDTreeSystem):
    """Leaf matching never checks that the subscriber is still alive."""

    def _remove_peers(self, names: list[str], graceful: bool) -> None:
        super()._remove_peers(names, graceful)
        self._departed = False


def _interleaved(seed: int) -> Trace:
    """Subscriptions and publications interleaved, so that leaves change between matches."""
    base = thesis_trace(40, 4, 160, seed=seed)
    subs = [op for op in base.ops if isinstance(op, Subscribe)]
    pubs = [op for op in base.ops if isinstance(op, Publish)]
    ops: list[Subscribe | Publish | Unsubscribe] = []
    for i, op in enumerate(pubs):
        ops += subs[i :: len(pubs)]
        ops.append(op)
    renumbered = tuple(replace(op, seq=i + 1) for i, op in enumerate(ops))
    return replace(base, ops=renumbered)


def _widened(trace: Trace) -> Trace:
    schema = trace.schemas[0]
    widening = tuple((f"{schema.name}/{a.name}", (a.max - a.min) / 10) for a in schema.attributes)
    return with_config(trace, replace(config_of(trace), widening=widening))


def _churned() -> Trace:
    return GENERATORS["churn"](5, 0, "small")


@pytest.mark.parametrize(
    ("mutant", "trace"),
    [
        (_StaleLeaves, lambda: _interleaved(2)),
        (_StaleRoutes, _churned),
        (_TestsTheOriginal, lambda: _widened(thesis_trace(40, 4, 120, seed=3))),
        (_DeadSubscribers, _churned),
    ],
    ids=["stale-leaves", "stale-routes", "tests-the-original", "dead-subscribers"],
)
def test_a_wrong_fast_engine_is_caught(mutant: type[FastTwoDTreeSystem], trace: Any) -> None:
    t = trace()
    assert _differences(t) == []  # the real fast engine agrees on this very trace
    assert _differences(t, mutant) != []


def test_simulate_prints_the_same_hash_with_either_engine(
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines = {}
    for engine in ("reference", "fast"):
        argv = ["simulate", "--nodes", "40", "--subs-per-node", "3", "--events", "60"]
        assert main([*argv, "--seed", "2", "--preset", "thesis", "--engine", engine]) == 0
        out = capsys.readouterr().out
        lines[engine] = [ln for ln in out.splitlines() if "event-log hash" in ln]
    assert lines["reference"] == lines["fast"] and len(lines["fast"]) == 1


def test_the_fast_engine_is_the_thesis_systems_only(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--system", "kyra", "--engine", "fast", "--events", "5", "--nodes", "5"]
    assert main(argv) == 2
    assert "--engine" in capsys.readouterr().err


def test_trace_validation_of_the_fast_engine() -> None:
    """The cut-off remapping of a run on the fast substrate validates against CutoffRemap.tla
    (properties/thesis/trace_export.py), the same run as the reference's; the mutant h = c on
    the fast substrate is rejected by validation."""
    from pubsub_spec.properties.thesis.trace_export import (
        FastHEqualsCutoff,
        FastTraceValidatedSystem,
        TraceValidatedSystem,
        cutoff_race_trace,
        validate_cutoff,
    )
    from pubsub_spec.properties.tla import tla_binary

    try:
        tla_binary()
    except FileNotFoundError:  # pragma: no cover - CI installs it (scripts/setup.sh)
        pytest.skip("tla-checker not installed")
    t = cutoff_race_trace(0)
    ref, fast = _run(t, TraceValidatedSystem), _run(t, FastTraceValidatedSystem)
    assert isinstance(fast.system.net, FastSubstrate)
    assert fast.event_log_hash == ref.event_log_hash
    assert fast.system.tv_leaves == ref.system.tv_leaves
    r = validate_cutoff(t, FastTraceValidatedSystem)
    assert r.records > 100 and not r.failures, r.failures
    bad = validate_cutoff(t, FastHEqualsCutoff)
    assert bad.failures and bad.failures[0][1].violated == "TVInitOK"


def _timers(engine: Engine[Item], times: list[float]) -> None:
    for i, at in enumerate(times):
        engine.schedule(at, Timer("ready", f"n{i}"))


def test_the_fast_engines_loop_is_engine_step() -> None:
    """`FastEngine.drain` processes what `Engine.step` would, in the same order and with the
    same log: up to a time (an item at exactly that time included), then to the end."""
    times = [3.0, 1.0, 2.0, 2.0, 5.0, 0.5]
    ref, fast = Engine[Item](), FastEngine()
    _timers(ref, times)
    _timers(fast, times)
    order: list[str] = []

    def handle(item: Item) -> str:
        assert isinstance(item, Timer)
        order.append(item.name)
        return item.name

    for until in (2.0, None):
        while (at := ref.next_time()) is not None and (until is None or at <= until):
            ref.step(handle)
        expected, order[:] = list(order), []
        fast.drain(handle, lambda d: "", until)
        assert order == expected and fast.now == ref.now and fast.processed == ref.processed
        order.clear()
    assert fast.log_hash() == ref.log_hash() and len(fast) == 0


def test_the_fast_engine_counts_what_it_processed_when_a_handler_raises() -> None:
    fast = FastEngine()
    _timers(fast, [1.0, 2.0, 3.0, 4.0])

    def handle(item: Item) -> str:
        if fast.now == 3.0:
            raise RuntimeError("a handler failed")
        return "ok"

    with pytest.raises(RuntimeError):
        fast.drain(handle, lambda d: "", None)
    assert fast.processed == 3 and len(fast) == 1
