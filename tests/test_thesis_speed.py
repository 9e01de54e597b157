"""The faster paths equal the plain ones they replace: the streamed,
vectorised oracle comparison (reference/sim/stream.py) gives `compare(expected_deliveries)`'s
very Comparison, also on deliveries with faults; the thesis system's dict matching equals
`matches`; the batched event-log hash equals the line-by-line one; a run whose deliveries are
streamed has the plain run's deliveries and event-log hash. Mutants of the fast oracle are
caught. Counts only, no timing (the speed itself: benchmarks/bench_thesis_speed.py)."""

from __future__ import annotations

import hashlib
import random
import subprocess
import sys
from collections import Counter
from dataclasses import replace

import pytest

from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.reference.common.matching import event_values, matches, matches_values
from pubsub_spec.reference.common.model import (
    Attribute,
    Event,
    MatchMode,
    Predicate,
    Schema,
    Subscription,
)
from pubsub_spec.reference.common.ops import Op, Publish, Subscribe, Trace
from pubsub_spec.reference.common.oracle import Delivery, expected_deliveries
from pubsub_spec.reference.sim import stream
from pubsub_spec.reference.sim.engine import Engine
from pubsub_spec.reference.sim.run import compare, run_trace
from pubsub_spec.reference.sim.stream import (
    DeliveryStream,
    StreamedDeliveries,
    compare_stream,
    expected_per_event,
)
from pubsub_spec.reference.thesis.figures import (
    DeliveryDigest,
    Scale,
    build_figures,
    streaming_oracle,
)
from pubsub_spec.reference.thesis.system import TwoDTreeSystem
from pubsub_spec.reference.thesis.workload import thesis_trace

TRACES = [GENERATORS[g](3, i, "tiny") for g in sorted(GENERATORS) for i in range(2)]


def _streamed(deliveries: list[Delivery]) -> DeliveryStream:
    out = DeliveryStream()
    for d in deliveries:
        out.add(d.event_id, d.sub_id)
    return out


def _faulty(expected: list[Delivery], rng: random.Random) -> list[Delivery]:
    """The oracle's deliveries with one missed, one duplicated and one spurious (if any)."""
    got = list(expected)
    rng.shuffle(got)
    if len(got) >= 2:
        got.pop()
        got.append(got[0])
    got.append(Delivery(got[0].event_id if got else "e-none", "no-such-sub"))
    got.append(Delivery("no-such-event", "s0"))
    return got


@pytest.mark.parametrize("trace", TRACES, ids=lambda t: t.trace_id)
def test_streamed_oracle_comparison_equals_the_plain_one(trace: Trace) -> None:
    expected = expected_deliveries(trace)
    flat = sorted(Delivery(e, s) for e, ids in expected_per_event(trace) for s in ids)
    assert flat == expected
    rng = random.Random(trace.trace_id)
    for got in (expected, _faulty(expected, rng)):
        assert compare_stream(expected_per_event(trace), _streamed(got)) == compare(expected, got)


def test_some_generated_trace_has_deliveries_and_the_fault_shows() -> None:
    """Otherwise the equalities above could hold on empty comparisons."""
    assert sum(len(expected_deliveries(t)) for t in TRACES) > 100
    t = next(t for t in TRACES if len(expected_deliveries(t)) >= 2)
    c = compare_stream(
        expected_per_event(t), _streamed(_faulty(expected_deliveries(t), random.Random(1)))
    )
    assert len(c.missed) == 1 and len(c.duplicate) == 1 and len(c.spurious) == 2


def test_a_duplicate_in_place_of_a_missed_delivery_shows() -> None:
    """As many deliveries of an event as expected, all of expected subscriptions, yet one
    twice and one missing: `compare_stream` must not take it for the usual exact case."""
    t = next(t for t in TRACES if any(len(ids) >= 2 for _, ids in expected_per_event(t)))
    expected = expected_deliveries(t)
    event_id, ids = next((e, ids) for e, ids in expected_per_event(t) if len(ids) >= 2)
    got = [d for d in expected if d != Delivery(event_id, ids[1])] + [Delivery(event_id, ids[0])]
    c = compare_stream(expected_per_event(t), _streamed(got))
    assert c == compare(expected, got)
    assert c.missed == (Delivery(event_id, ids[1]),)
    assert c.duplicate == (Delivery(event_id, ids[0]),)


S = Schema("s", (Attribute("a", "int", 0, 2**60), Attribute("b", "float", 0.0, 1.0)))


def _big_trace(mode: MatchMode) -> Trace:
    """Bounds beyond float64 precision: the vectorised path would merge 2^53 and 2^53 + 1."""
    big = 2**53
    subs = [
        Subscription("s0", "n0", "s", (Predicate("a", big + 1, big + 1),)),
        Subscription("s1", "n0", "s", (Predicate("a", big, big), Predicate("b", 0.0, 0.5))),
    ]
    events = [
        Event("e0", "n0", "s", (("a", big),)),
        Event("e1", "n0", "s", (("a", big + 1), ("b", 0.25))),
        Event("e2", "n0", "s", (("b", 0.25),)),
    ]
    ops: list[Op] = [Subscribe(i + 1, s) for i, s in enumerate(subs)]
    ops += [Publish(len(subs) + i + 1, e) for i, e in enumerate(events)]
    return Trace((S,), tuple(ops), initial_nodes=1, matching=mode)


@pytest.mark.parametrize("mode", ["strict", "lenient"])
def test_inexact_numbers_fall_back_to_the_brute_force_oracle(mode: MatchMode) -> None:
    trace = _big_trace(mode)
    assert not stream._vectorisable(trace)
    flat = sorted(Delivery(e, s) for e, ids in expected_per_event(trace) for s in ids)
    assert flat == expected_deliveries(trace)
    assert Delivery("e1", "s0") in flat and Delivery("e0", "s0") not in flat


class _LenientAlways(stream._Compiled):
    """Mutant: an absent attribute never fails a predicate (strict treated as lenient)."""

    def matching(self, event: Event, mode: MatchMode) -> list[str]:
        return super().matching(event, "lenient")


class _ClosedBelow(stream._Compiled):
    """Mutant: the lower bound is exclusive."""

    def matching(self, event: Event, mode: MatchMode) -> list[str]:
        self.lo = self.lo + 1e-9 * (self.lo == self.lo)
        return super().matching(event, mode)


@pytest.mark.parametrize("mutant", [_LenientAlways, _ClosedBelow])
def test_a_wrong_fast_oracle_is_caught(
    mutant: type[stream._Compiled], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stream, "_Compiled", mutant)
    caught = 0
    for trace in TRACES:
        flat = sorted(Delivery(e, s) for e, ids in expected_per_event(trace) for s in ids)
        caught += flat != expected_deliveries(trace)
    assert caught > 0


def test_figures_streaming_oracle_is_the_oracle() -> None:
    for trace in TRACES[:6]:
        want = DeliveryDigest()
        for d in expected_deliveries(trace):
            want.add(d.event_id, d.sub_id)
        assert streaming_oracle(trace).disagreeing(want) == []


def test_dict_matching_equals_matches() -> None:
    rng = random.Random(5)
    schema = Schema("t", tuple(Attribute(n, "float", 0.0, 10.0) for n in "abc"))
    checked = Counter[bool]()
    for i in range(3000):
        preds = tuple(
            Predicate(n, lo, lo + rng.uniform(0, 6))
            for n in rng.sample("abc", rng.randint(1, 3))
            for lo in [round(rng.uniform(0, 8), 1)]
        )
        sub = Subscription(f"s{i}", "n0", rng.choice(["t", "u"]), preds)
        vals = tuple((n, round(rng.uniform(0, 10), 1)) for n in "abc" if rng.random() < 0.7)
        ev = Event(f"e{i}", "n0", schema.name, vals)
        for mode in ("strict", "lenient"):
            want = matches(sub, ev, mode)
            assert matches_values(sub, ev.schema, event_values(ev), mode == "strict") == want
            checked[want] += 1
    assert checked[True] > 200 and checked[False] > 200


def test_batched_log_hash_equals_line_by_line() -> None:
    engine: Engine[int] = Engine()
    lines = []
    for i in range(10000):
        engine.schedule(float(i // 3), i)
        if i % 1000 == 0:
            engine.note(f"op{i}")
            lines.append(f"{engine.now!r}|op|op{i}\n")
        engine.step(lambda item: f"item {item}")
        lines.append(f"{engine.now!r}|{i + 1}|item {i}\n")
    plain = hashlib.sha256()
    for line in lines:
        plain.update(line.encode())
    assert engine.log_hash() == plain.hexdigest()


def test_a_streamed_run_has_the_plain_run_deliveries_and_hash() -> None:
    trace = thesis_trace(40, 3, 150, 2)
    plain = run_trace(trace, TwoDTreeSystem.for_trace)
    got = DeliveryStream()

    def make(t: Trace) -> TwoDTreeSystem:
        system = TwoDTreeSystem.for_trace(t)
        system.deliveries = StreamedDeliveries(got)
        return system

    streamed = run_trace(trace, make)
    assert streamed.deliveries == [] and got.count == len(plain.deliveries) > 100
    assert Counter(Delivery(e, s) for e, ids in got.by_event.items() for s in ids) == Counter(
        plain.deliveries
    )
    assert streamed.event_log_hash == plain.event_log_hash


def test_figures_in_two_processes_equal_figures_in_one() -> None:
    tiny = Scale("tiny", 30, 2, 60, (30, 45), 60)
    one_figs, one_runs = build_figures(tiny, check=True, jobs=1)
    two_figs, two_runs = build_figures(tiny, check=True, jobs=2)
    assert (
        list(one_runs)
        == list(two_runs)
        == [
            "thesis",
            "unicast-probes",
            "no-cutoff",
            "sweep-30",
            "sweep-45",
        ]
    )
    assert one_runs == two_runs and all(r.agree for r in one_runs.values())
    assert one_runs["sweep-30"] == replace(one_runs["thesis"], name="sweep-30")  # reused
    assert [(f.id, f.series, f.ours) for f in one_figs] == [
        (f.id, f.series, f.ours) for f in two_figs
    ]


def test_a_command_imports_only_its_own_module() -> None:
    """`pubsub-spec simulate ...` imports the simulate command alone (the other commands'
    imports cost every simulation about 0.16 s of CPU); with no command, all are offered."""
    code = (
        "import contextlib, io, sys\n"
        "from pubsub_spec.cli import main\n"
        "for argv in (['simulate', '--help'], []):\n"
        "    err = io.StringIO()\n"
        "    with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()), "
        "contextlib.redirect_stderr(err):\n"
        "        main(argv)\n"
        "    print(sorted(m for m in sys.modules if m.startswith('pubsub_spec.cmd_')))\n"
        "    print(' '.join(err.getvalue().split()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[0] == "['pubsub_spec.cmd_simulate']"
    assert "{systems,simulate,lbdd,check,generate,conform,figures,verify,vectors}" in out[3]
