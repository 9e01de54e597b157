"""Trace validation of the thesis system's cut-off remapping against
spec/thesis/CutoffRemap.tla.

`TraceValidatedSystem` observes a run without changing it (no random draw, no message, no
state of its own that the system reads): at each leaf match (§3.4.1) it notes which stored
points of which subscription were examined for the event and how many times each subscription
was put into the delivery (its id appears once per delivering point, §3.4.3). reference/thesis
is not edited: the hook is a subclass, on either substrate (reference/thesis/substrate.py).

Abstraction map (docs/tla.md, "Trace validation"): one record per (subscription, event) with
the subscription active for the event (subscribed before, not unsubscribed between), its base
attribute under a cut-off (§3.5) and the event's other values inside its other predicates (the
spec models the base attribute alone; the leaf checks the rest of the conjunction):

- l, u: the stored range of the base attribute (after widening, §3.3), v: the event's value,
  c: the cut-off, h: the remap step read off the stored points (segment 1's low end minus
  segment 0's; 1 when there is one segment, where the spec does not read h), each as
  (x - min) * D with D the least common multiple of the denominators of the attribute's
  recorded values (exact: the map is linear and order-preserving); MaxV = (max - min) * D,
  MaxC = c * D. Records whose D would make the domain wider than `MAX_SCALED` are not mapped
  (the spec's Init enumerates 0..MaxV): they are counted, not validated;
- segs: the stored points' segments <<lo, hi, closed>> in segment order;
- leaves: per leaf that matched the event, the segment indices of the subscription examined
  there and the number of deliveries it produced.

Checked (invariants of the generated module): TVInitOK (the record is a state of the spec:
Next only stutters, so the reachable states are the Init states), TVSegments (the stored
segments are SegLo/SegHi/Closed), TVDeliveries (per leaf, deliveries = examined segments in
Delivering), TVFound (every delivering segment was examined at some leaf).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from pubsub_spec.properties.tracecheck import TlaValue, Validation, tla_literal, validate
from pubsub_spec.reference.common.model import Event, Number, qualified
from pubsub_spec.reference.common.ops import Fail, Leave, Publish, Subscribe, Trace, Unsubscribe
from pubsub_spec.reference.thesis.run import run_trace
from pubsub_spec.reference.thesis.substrate_fast import FastSubstrate
from pubsub_spec.reference.thesis.system import Peer, TwoDTreeSystem
from pubsub_spec.reference.thesis.tree import StoredPoint, TreeNode

MAX_SCALED = 4096


class TraceValidatedSystem(TwoDTreeSystem):
    """The reference with an observation hook at the leaf match (module doc)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.tv_leaves: dict[tuple[str, str], list[tuple[frozenset[int], int]]] = defaultdict(list)
        self._tv_capture: list[tuple[tuple[str, tuple[str, ...]], ...]] | None = None

    def _match_and_deliver(self, peer: Peer, node: TreeNode, event: Event) -> None:
        eseq = self.event_seq[event.id]
        seen: dict[str, set[int]] = defaultdict(set)
        for point in node.points.values():
            if point.seq < eseq and point.sub.schema == event.schema:
                seen[point.sub.id].add(point.segment.index)
        self._tv_capture = []
        try:
            super()._match_and_deliver(peer, node, event)
        finally:
            captured, self._tv_capture = self._tv_capture, None
        counts = Counter(sid for targets in captured for _, ids in targets for sid in ids)
        for sid, idx in seen.items():
            self.tv_leaves[(event.id, sid)].append((frozenset(idx), counts[sid]))

    def _deliver(self, peer: Peer, event: Event, by_subscriber: dict[str, list[str]]) -> None:
        if self._tv_capture is not None:  # the leaf's one delivery step (§3.4.3)
            self._tv_capture.append(tuple((s, tuple(ids)) for s, ids in by_subscriber.items()))
        super()._deliver(peer, event, by_subscriber)


class HEqualsCutoff(TraceValidatedSystem):
    """MUTANT (a state-only slip): the remap step h equal to the cut-off c, i.e.
    thesis §3.5's "h < c" read as h <= c. The segments lie on the cut-off line, still inside
    every target area that holds their values, so every delivery is right and the oracle sees
    nothing; the spec's Init (h in 1..c-1) rejects the stored points."""

    def _stored_points(self, sub: object, seq: int) -> tuple[StoredPoint, ...]:
        from pubsub_spec.reference.thesis.points import stored_points

        cfg = replace(self.config, cutoff_h=self.config.cutoff)
        return stored_points(sub, seq, self.seed, cfg, self.attrs, self.squares)  # type: ignore[arg-type]


class FastTraceValidatedSystem(TraceValidatedSystem):
    """`TraceValidatedSystem` on the fast substrate (the engine `simulate` runs)."""

    substrate_class = FastSubstrate


class FastHEqualsCutoff(HEqualsCutoff):
    """`HEqualsCutoff` on the fast substrate."""

    substrate_class = FastSubstrate


@dataclass(frozen=True)
class RawRecord:
    qattr: str
    sub_id: str
    event_id: str
    low: Fraction  # the spec's l
    up: Fraction  # the spec's u
    v: Fraction
    c: Fraction
    segs: tuple[tuple[Fraction, Fraction, bool], ...]
    leaves: tuple[tuple[frozenset[int], int], ...]


def _active_pairs(trace: Trace) -> list[tuple[str, str]]:
    """(subscription, event) with the subscription active for the event, its subscriber never
    gone (a leave or failure drops deliveries to it, §3.6)."""
    subscribed: dict[str, int] = {}
    gone_subs: set[str] = set()
    gone_nodes: set[str] = set()
    owner: dict[str, str] = {}
    pairs: list[tuple[str, str]] = []
    for op in trace.ops:
        if isinstance(op, Subscribe):
            subscribed[op.sub.id] = op.seq
            owner[op.sub.id] = op.sub.subscriber
        elif isinstance(op, Unsubscribe):
            gone_subs.add(op.sub_id)
            subscribed.pop(op.sub_id, None)
        elif isinstance(op, Leave):
            gone_nodes.add(op.node)
        elif isinstance(op, Fail):
            gone_nodes.update(op.nodes)
        elif isinstance(op, Publish):
            pairs.extend((sid, op.event.id) for sid in subscribed)
    return [(s, e) for s, e in pairs if owner[s] not in gone_nodes]


def raw_records(trace: Trace, system_class: type[TraceValidatedSystem]) -> list[RawRecord]:
    """Run the trace on the observed system and apply the abstraction map (module doc)."""
    result = run_trace(trace, system_class=system_class)
    system = result.system
    assert isinstance(system, TraceValidatedSystem)
    if system.metrics.points_lost:
        return []  # points lost beyond the replication bound (§3.6): outside the spec
    events = {op.event.id: op.event for op in trace.ops if isinstance(op, Publish)}
    out: list[RawRecord] = []
    for sid, eid in _active_pairs(trace):
        state, event = system.subs[sid], events[eid]
        points = sorted(state.points, key=lambda p: p.segment.index)
        base = points[0].base
        q = qualified(state.original.schema, base)
        c = system.config.cutoff_of(q)
        v = event.value(base)
        if c is None or event.schema != state.original.schema or v is None:
            continue
        others = [p for p in state.original.predicates if p.attribute != base]
        if not all(_inside(event.value(p.attribute), p.lo, p.hi) for p in others):
            continue
        pred = points[0].sub.predicate(base)
        assert pred is not None
        segs = tuple(
            (Fraction(p.segment.lo), Fraction(p.segment.hi), p.segment.closed) for p in points
        )
        leaves = tuple(system.tv_leaves.get((eid, sid), []))
        out.append(
            RawRecord(
                q,
                sid,
                eid,
                Fraction(pred.lo),
                Fraction(pred.hi),
                Fraction(v),
                Fraction(c),
                segs,
                leaves,
            )
        )
    return out


def _inside(v: Number | None, lo: Number, hi: Number) -> bool:
    return v is not None and lo <= v <= hi


def _values(r: RawRecord) -> list[Fraction]:
    return [r.low, r.up, r.v, r.c, *(x for lo, hi, _ in r.segs for x in (lo, hi))]


@dataclass(frozen=True)
class CutoffModule:
    qattr: str
    module: str
    cfg: str
    records: int
    skipped: int


def cutoff_modules(
    trace: Trace,
    system_class: type[TraceValidatedSystem],
    name: str = "TVCutoffRemap",
    tamper: Callable[[RawRecord], RawRecord] | None = None,
) -> list[CutoffModule]:
    """One generated module per cut-off attribute of the run (module doc); `tamper` alters the
    records before they are written (tests/test_trace_validation.py: each TV invariant has
    teeth)."""
    system = system_class.for_trace(trace)
    by_attr: dict[str, list[RawRecord]] = defaultdict(list)
    for r in raw_records(trace, system_class):
        by_attr[r.qattr].append(tamper(r) if tamper else r)
    modules: list[CutoffModule] = []
    for q, recs in sorted(by_attr.items()):
        attr = system.attrs[q]
        lo, width = Fraction(attr.min), Fraction(attr.max) - Fraction(attr.min)
        d, skipped = 1, 0
        kept: list[RawRecord] = []
        for r in recs:
            dr = math.lcm(d, *((x - lo).denominator for x in _values(r)), r.c.denominator)
            if width * dr <= MAX_SCALED:
                d, kept = dr, [*kept, r]
            else:
                skipped += 1
        if not kept:
            modules.append(CutoffModule(q, "", "", 0, skipped))
            continue

        def nat(x: Fraction, d: int = d, lo: Fraction = lo) -> int:
            y = (x - lo) * d
            assert y.denominator == 1
            return int(y)

        rows: list[TlaValue] = []
        for r in kept:
            h = r.segs[1][0] - r.segs[0][0] if len(r.segs) > 1 else Fraction(1, d)
            rows.append(
                {
                    "l": nat(r.low),
                    "u": nat(r.up),
                    "v": nat(r.v),
                    "c": int(r.c * d),
                    "h": int(h * d),
                    "segs": tuple((nat(a), nat(b), cl) for a, b, cl in r.segs),
                    "leaves": tuple({"seen": s, "n": n} for s, n in r.leaves),
                    "what": f"{r.sub_id}/{r.event_id}",
                }
            )
        max_c = max(int(r.c * d) for r in kept)
        module = _record_module(name, rows)
        cfg = (
            f'CONSTANTS\n    Bug = "none"\n    MaxV = {int(width * d)}\n    MaxC = {max_c}\n'
            "    ClosedAll = FALSE\nINIT TVInit\nNEXT TVNext\nINVARIANTS\n    TVInitOK\n"
            "    TVSegments\n    TVDeliveries\n    TVFound\nCHECK_DEADLOCK FALSE\n"
        )
        modules.append(CutoffModule(q, module, cfg, len(kept), skipped))
    return modules


def _record_module(name: str, rows: Sequence[TlaValue]) -> str:
    """The records as a set the initial states range over; each state carries its record in
    `tvR` (read from the state, not re-evaluated from the constant, which keeps the check
    linear in the number of records)."""
    recs = ",\n    ".join(tla_literal(r) for r in rows)
    return f"""---- MODULE {name} ----
EXTENDS CutoffRemap, Sequences
VARIABLE tvR
TVRec == {{
    {recs}
    }}
TVInit == tvR \\in TVRec /\\ l = tvR.l /\\ u = tvR.u /\\ v = tvR.v /\\ c = tvR.c /\\ h = tvR.h
TVNext == UNCHANGED <<tvR, l, u, v, c, h>>
TVInitOK == Init
TVSegments == /\\ Len(tvR.segs) = NSeg
              /\\ \\A i \\in Seg : tvR.segs[i + 1] = <<SegLo(i), SegHi(i), Closed(i)>>
TVDeliveries == \\A j \\in DOMAIN tvR.leaves :
                    tvR.leaves[j].n = Cardinality(tvR.leaves[j].seen \\cap Delivering)
TVFound == Delivering \\subseteq UNION {{tvR.leaves[j].seen : j \\in DOMAIN tvR.leaves}}
====
"""


@dataclass(frozen=True)
class CutoffValidation:
    records: int
    skipped: int
    failures: list[tuple[str, Validation]]


def validate_cutoff(
    trace: Trace,
    system_class: type[TraceValidatedSystem] = TraceValidatedSystem,
    tamper: Callable[[RawRecord], RawRecord] | None = None,
) -> CutoffValidation:
    """Validate every mapped record of the run against CutoffRemap.tla (module doc)."""
    records = skipped = 0
    failures: list[tuple[str, Validation]] = []
    for m in cutoff_modules(trace, system_class, tamper=tamper):
        records += m.records
        skipped += m.skipped
        if m.records:
            v = validate("thesis", "TVCutoffRemap", m.module, m.cfg, expect_states=m.records)
            if not v.ok:
                failures.append((m.qattr, v))
    return CutoffValidation(records, skipped, failures)


def oracle_agrees(trace: Trace, system_class: type[TwoDTreeSystem]) -> bool:
    """The delivery oracle alone: the run's deliveries are exactly the expected ones."""
    from pubsub_spec.reference.thesis.run import run_and_compare

    _, comparison = run_and_compare(trace, system_class=system_class)
    return comparison.agree


def cutoff_race_trace(seed: int) -> Trace:
    """Races under a cut-off (erratum E4 with §3.5): an int attribute 0..64 with c = 12 and h
    drawn by each subscriber (`choose_h`), capacity 1-2, subscriptions and publications 1 ms
    apart so that probes meet splits in flight; wide ranges and values on segment boundaries.
    Every draw from `random.Random(f"{seed}:tv-cutoff-race")`."""
    import random

    from pubsub_spec.reference.common.model import Attribute, Predicate, Schema, Subscription
    from pubsub_spec.reference.common.ops import Op, Timing
    from pubsub_spec.reference.thesis.config import SECTION, ThesisConfig

    rng = random.Random(f"{seed}:tv-cutoff-race")
    schema = Schema("s", (Attribute("b", "int", 0, 64), Attribute("k", "int", 0, 3)))
    nodes = rng.choice([5, 20])
    ops: list[Op] = []
    ranges: list[tuple[int, int]] = []
    for i in range(1, 61):
        who = f"n{rng.randrange(nodes)}"
        if rng.random() < 0.5:
            lo = rng.randint(0, 60)
            hi = rng.randint(lo, 64) if rng.random() < 0.7 else lo + rng.randint(0, 4)
            hi = min(hi, 64)
            ranges.append((lo, hi))
            preds = [Predicate("b", lo, hi)]
            if rng.random() < 0.3:
                preds.append(Predicate("k", 0, rng.randint(0, 3)))
            ops.append(Subscribe(i, Subscription(f"s{i}", who, "s", tuple(preds))))
        else:
            if ranges and rng.random() < 0.5:
                lo, hi = rng.choice(ranges)
                v = min(64, lo + rng.randint(0, 12) * rng.randint(1, 6))  # near boundaries
            else:
                v = rng.randint(0, 64)
            values = (("b", v), ("k", rng.randint(0, 3)))
            ops.append(Publish(i, Event(f"e{i}", who, "s", values)))
    cfg = ThesisConfig(
        capacity_min=1,
        capacity_max=2,
        max_depth=8,
        pub_min_level=rng.choice([0, 2]),
        pub_max_level=rng.choice([4, 8]),
        pub_p=rng.choice([0.0, 0.3]),
        cutoff=(("s/b", 12),),
    )
    timing = Timing(sub_interarrival_ms=rng.choice([1.0, 30.0]), pub_interarrival_ms=1.0)
    return Trace(
        (schema,),
        tuple(ops),
        initial_nodes=nodes,
        seed=seed,
        timing=timing,
        sections=((SECTION, cfg),),
        generator="tv-cutoff-race",
    )
