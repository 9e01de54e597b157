"""Hypothesis strategies for workloads that stress the reference where it is fragile:
several schemas, partial events in both matching modes, identical and corner points, values on
zone and remap-segment boundaries, cut-off on and off, unicast and multicast, delayed and lost
LeafNodeUpdateMessages, coarsened routing tables, and churn within the replication bound."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from hypothesis import strategies as st

from pubsub_spec.reference.common.model import (
    Attribute,
    Event,
    MatchMode,
    Number,
    Predicate,
    Schema,
    Subscription,
)
from pubsub_spec.reference.common.ops import (
    Fail,
    Join,
    Leave,
    Op,
    Publish,
    Subscribe,
    Timing,
    Trace,
    Unsubscribe,
)
from pubsub_spec.reference.thesis.config import SECTION, ThesisConfig

SCHEMA_S = Schema("s", (Attribute("a", "float", 0.0, 100.0), Attribute("b", "int", 0, 64)))
SCHEMA_T = Schema("t", (Attribute("x", "float", -1.0, 1.0),))
CUTOFF = (("s/a", 20.0), ("s/b", 12.0), ("t/x", 0.5))
CUTOFF_H = (("s/a", 7.5), ("s/b", 5.0), ("t/x", 0.125))


def _boundaries(attr: Attribute) -> list[Number]:
    """Domain ends and zone boundaries (dyadic fractions of the domain, thesis §3.2.1)."""
    w = attr.max - attr.min
    out: list[Number] = [attr.min, attr.max]
    for j in (1, 2, 3):
        for k in range(1, 1 << j):
            v = attr.min + k * w / (1 << j)
            out.append(int(v) if attr.type == "int" else v)
    return sorted(set(out))


def values(attr: Attribute) -> st.SearchStrategy[Number]:
    special = st.sampled_from(_boundaries(attr))
    if attr.type == "int":
        return st.one_of(special, st.integers(int(attr.min), int(attr.max)))
    anywhere = st.floats(float(attr.min), float(attr.max), allow_nan=False, allow_infinity=False)
    grid = st.integers(0, 16).map(lambda i: attr.min + i * (attr.max - attr.min) / 16)
    return st.one_of(special, grid, anywhere)


@dataclass
class _State:
    live: list[str]
    next_node: int
    active: dict[str, Subscription] = field(default_factory=dict)
    seq: int = 0
    ids: int = 0


@st.composite
def configs(draw: st.DrawFn) -> tuple[ThesisConfig, Timing]:
    """The thesis system's section and the op timing, drawn together (in the draw order of the
    single v1 config, so that the Hypothesis database's examples keep their meaning)."""
    cut = draw(st.booleans())
    lossy = draw(st.booleans())
    cap_min = draw(st.integers(1, 3))
    cfg = ThesisConfig(
        capacity_min=cap_min,
        capacity_max=cap_min + draw(st.integers(0, 3)),
        max_depth=draw(st.integers(3, 10)),
        sub_probe_max_level=draw(st.integers(0, 10)),
        pub_min_level=draw(st.integers(0, 3)),
        pub_max_level=draw(st.integers(3, 10)),
        pub_p=draw(st.sampled_from([0.0, 0.3, 0.7, 1.0])),
        cutoff=CUTOFF if cut else (),
        cutoff_h=CUTOFF_H if cut and draw(st.booleans()) else (),
        widening=(("s/a", 1.5),) if draw(st.booleans()) else (),
        delivery=draw(st.sampled_from(["unicast", "multicast"])),
        replication=2,
        leaf_update_loss=0.5 if lossy else 0.0,
        leaf_update_delay_ms=draw(st.sampled_from([0.0, 3000.0])),
        lnrt_max_records=draw(st.sampled_from([None, 2, 4])),
        join_ready_ms=-1.0,  # drawn after the timing, below
    )
    timing = Timing(
        sub_interarrival_ms=draw(st.sampled_from([1.0, 50.0])),
        pub_interarrival_ms=draw(st.sampled_from([1.0, 50.0])),
    )
    return replace(cfg, join_ready_ms=draw(st.sampled_from([10.0, 500.0]))), timing


def _subscription(draw: st.DrawFn, s: _State, cfg: ThesisConfig) -> Subscription:
    schema = draw(st.sampled_from([SCHEMA_S, SCHEMA_S, SCHEMA_T]))
    attrs = draw(st.lists(st.sampled_from(schema.attributes), min_size=1, unique=True))
    preds = []
    for a in attrs:
        lo, hi = sorted((draw(values(a)), draw(values(a))))
        if draw(st.integers(0, 4)) == 0:
            lo, hi = a.min, a.max  # the hot corner (thesis §3.5)
        preds.append(Predicate(a.name, lo, hi))
    s.ids += 1
    return Subscription(f"s{s.ids}", draw(st.sampled_from(s.live)), schema.name, tuple(preds))


def _event(draw: st.DrawFn, s: _State, cfg: ThesisConfig, partial: bool) -> Event:
    schema = draw(st.sampled_from([SCHEMA_S, SCHEMA_S, SCHEMA_T]))
    attrs = (
        draw(st.lists(st.sampled_from(schema.attributes), min_size=1, unique=True))
        if partial
        else list(schema.attributes)
    )
    vals: list[tuple[str, Number]] = []
    h = dict(cfg.cutoff_h)
    for a in attrs:
        v = draw(values(a))
        subs = [x for x in s.active.values() if x.schema == schema.name and x.predicate(a.name)]
        qa = f"{schema.name}/{a.name}"
        if subs and qa in h and draw(st.booleans()):
            # aim at a remapped segment boundary l + i*h (thesis §3.5, decision D-SEG)
            p = draw(st.sampled_from(subs)).predicate(a.name)
            assert p is not None
            cand = p.lo + draw(st.integers(0, 12)) * h[qa]
            if a.type == "int":
                cand = int(cand)
            if p.lo <= cand <= p.hi:
                v = cand
        vals.append((a.name, v))
    s.ids += 1
    return Event(f"e{s.ids}", draw(st.sampled_from(s.live)), schema.name, tuple(sorted(vals)))


@st.composite
def workloads(draw: st.DrawFn, churn: bool = True, max_ops: int = 40) -> Trace:
    cfg, timing = draw(configs())
    matching: MatchMode = draw(st.sampled_from(["strict", "lenient"]))
    partial = draw(st.booleans())
    n0 = draw(st.integers(3, 10))
    s = _State([f"n{i}" for i in range(n0)], n0)
    ops: list[Op] = []
    kinds = ["subscribe"] * 4 + ["publish"] * 4 + ["unsubscribe"]
    if churn:
        kinds += ["join", "leave", "fail"]
    for _ in range(draw(st.integers(1, max_ops))):
        kind = draw(st.sampled_from(kinds))
        s.seq += 1
        if kind == "subscribe":
            sub = _subscription(draw, s, cfg)
            s.active[sub.id] = sub
            ops.append(Subscribe(s.seq, sub))
        elif kind == "unsubscribe" and s.active:
            sid = draw(st.sampled_from(sorted(s.active)))
            del s.active[sid]
            ops.append(Unsubscribe(s.seq, sid))
        elif kind == "join":
            name = f"n{s.next_node}"
            s.next_node += 1
            s.live.append(name)
            ops.append(Join(s.seq, name))
        elif kind in ("leave", "fail") and len(s.live) > 3:
            # at most k = replication peers fail at once: within the bound of thesis §3.6
            count = 1 if kind == "leave" else draw(st.integers(1, cfg.replication))
            gone = draw(
                st.lists(st.sampled_from(s.live), min_size=count, max_size=count, unique=True)
            )
            for n in gone:
                s.live.remove(n)
            for sid in [i for i, x in s.active.items() if x.subscriber in gone]:
                del s.active[sid]
            ops.append(Leave(s.seq, gone[0]) if kind == "leave" else Fail(s.seq, tuple(gone)))
        else:
            ops.append(Publish(s.seq, _event(draw, s, cfg, partial)))
    return Trace(
        (SCHEMA_S, SCHEMA_T),
        tuple(ops),
        initial_nodes=n0,
        matching=matching,
        seed=draw(st.integers(0, 2**16)),
        timing=timing,
        sections=((SECTION, cfg),),
        generator="hypothesis",
    )


def race_trace(seed: int) -> Trace:
    """A workload built for races (erratum E4): capacity 1–2, ranges everywhere, publishes and
    subscribes 1 ms apart, so that probes are in flight while leaves split and while their
    LeafNodeUpdateMessages climb; deep guessed probes make jump-backs frequent."""
    import random

    rng = random.Random(seed)
    schema = Schema("s", (Attribute("a", "float", 0.0, 100.0),))
    nodes = rng.choice([5, 20, 60])
    ops: list[Op] = []
    for i in range(1, 121):
        who = f"n{rng.randrange(nodes)}"
        if rng.random() < 0.5:
            lo = rng.uniform(0, 100)
            pred = Predicate("a", lo, rng.uniform(lo, 100))
            ops.append(Subscribe(i, Subscription(f"s{i}", who, "s", (pred,))))
        else:
            ops.append(Publish(i, Event(f"e{i}", who, "s", (("a", rng.uniform(0, 100)),))))
    cfg = ThesisConfig(
        capacity_min=1,
        capacity_max=2,
        max_depth=10,
        pub_min_level=rng.choice([0, 2]),
        pub_max_level=rng.choice([4, 8, 10]),
        pub_p=rng.choice([0.0, 0.3]),
    )
    timing = Timing(sub_interarrival_ms=rng.choice([1.0, 30.0]), pub_interarrival_ms=1.0)
    return Trace(
        (schema,),
        tuple(ops),
        initial_nodes=nodes,
        seed=seed,
        timing=timing,
        sections=((SECTION, cfg),),
        generator="race",
    )
