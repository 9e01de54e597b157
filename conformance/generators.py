"""Trace generators for the conformance suite, each a pure function of (seed, index, profile):
the thesis' Zipf workload (§4.1.2), a uniform one, and adversarial ones aimed at the places an
implementation gets wrong (docs/conformance.md, "What the default set catches"): identical and
corner points, values on 2d-tree zone boundaries and on cut-off remap segment boundaries, wide
ranges over the cut-off, partial events in both matching modes, unsubscription and churn; and
advertisement-driven workloads (trace format v2, conformance/FORMAT.md "Advertisements"):
OctopiA's stock-quote workload (Shafique, arXiv:1604.06853, §VIII) and a High Rate Publisher's
burst that congests OctopiA's output queues (§VII-B).

Adding a generator adds vectors (`python -m pubsub_spec.conformance.vectors make`); a new one
must not change what an existing one draws, so each draws from its own (seed, name, index)
generator (`substream`, reference/sim/seeds.py)."""

from __future__ import annotations

import random
from collections.abc import Callable

from pubsub_spec.conformance.generators_power import POWER_GENERATORS, with_seq
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
    Advertise,
    Fail,
    Join,
    Leave,
    Op,
    Publish,
    Subscribe,
    Timing,
    Trace,
    Unadvertise,
    Unsubscribe,
)
from pubsub_spec.reference.octopia.config import OctopiaConfig
from pubsub_spec.reference.octopia.scot import path_factor
from pubsub_spec.reference.sim.seeds import substream
from pubsub_spec.reference.thesis.config import SECTION, ThesisConfig
from pubsub_spec.reference.thesis.workload import thesis_trace

Generator = Callable[[int, int, str], Trace]
# (nodes, subscriptions, publishes) per trace. `large` is for runs sized by ops
# (`--ops`, conformance/scale/); adding it changes no draw of the other profiles.
PROFILES = {
    "tiny": (6, 12, 12),
    "small": (16, 40, 40),
    "medium": (60, 200, 300),
    "large": (120, 400, 600),
}

MIXED = (
    Schema("s", (Attribute("a", "float", 0.0, 100.0), Attribute("b", "int", 0, 64))),
    Schema("t", (Attribute("x", "float", -1.0, 1.0), Attribute("y", "float", 0.0, 8.0))),
)
CUTOFF = (("s/a", 20.0), ("s/b", 12.0), ("t/x", 0.5), ("t/y", 2.0))
CUTOFF_H = (("s/a", 7.5), ("s/b", 5.0), ("t/x", 0.125), ("t/y", 0.75))


def _boundary(rng: random.Random, a: Attribute) -> Number:
    """A zone boundary min + k (max - min) / 2^j (thesis §3.2.1), or a domain end."""
    j = rng.randint(0, 4)
    v = a.min + rng.randint(0, 1 << j) * (a.max - a.min) / (1 << j)
    return int(v) if a.type == "int" else v


def _uniform(rng: random.Random, a: Attribute) -> Number:
    if a.type == "int":
        return rng.randint(int(a.min), int(a.max))
    return round(rng.uniform(a.min, a.max), 3)


def _build(
    rng: random.Random,
    name: str,
    profile: str,
    value: Callable[[random.Random, Attribute], Number],
    *,
    matching: MatchMode = "strict",
    partial: bool = False,
    churn: bool = False,
    cutoff: bool = False,
    identical: bool = False,
) -> Trace:
    nodes, n_subs, n_pubs = PROFILES[profile]
    live = [f"n{i}" for i in range(nodes)]
    active: dict[str, Subscription] = {}
    ops: list[Op] = []
    pending = ["sub"] * n_subs + ["pub"] * n_pubs
    if churn:
        pending += ["churn"] * max(2, n_pubs // 8)
    pending += ["unsub"] * max(1, n_subs // 10)
    rng.shuffle(pending)
    spot = None
    hs = dict(CUTOFF_H)
    for seq, kind in enumerate(pending, start=1):
        schema = rng.choice(MIXED)
        if kind == "sub":
            attrs = rng.sample(schema.attributes, rng.randint(1, len(schema.attributes)))
            preds = []
            for a in attrs:
                if identical and rng.random() < 0.5:
                    spot = spot or (a.name, value(rng, a))
                    v = spot[1] if spot[0] == a.name else value(rng, a)
                    lo, hi = sorted((v, v))
                elif rng.random() < 0.15:
                    lo, hi = a.min, a.max  # the hot corner of §3.5
                else:
                    lo, hi = sorted((value(rng, a), value(rng, a)))
                preds.append(Predicate(a.name, lo, hi))
            sub = Subscription(f"s{seq}", rng.choice(live), schema.name, tuple(preds))
            active[sub.id] = sub
            ops.append(Subscribe(seq, sub))
        elif kind == "unsub" and active:
            sid = rng.choice(sorted(active))
            del active[sid]
            ops.append(Unsubscribe(seq, sid))
        elif kind == "churn":
            r = rng.random()
            if r < 0.4 or len(live) <= 3:
                node = f"n{nodes + seq}"
                live.append(node)
                ops.append(Join(seq, node))
            else:
                gone = rng.sample(live, 1 if r < 0.7 else 2)
                for n in gone:
                    live.remove(n)
                for sid in [s for s, x in active.items() if x.subscriber in gone]:
                    del active[sid]
                ops.append(Leave(seq, gone[0]) if r < 0.7 else Fail(seq, tuple(gone)))
        else:
            attrs = (
                rng.sample(schema.attributes, rng.randint(1, len(schema.attributes)))
                if partial
                else list(schema.attributes)
            )
            vals: list[tuple[str, Number]] = []
            # the subscriptions of the schema, made only where they are used (no draw depends
            # on making them)
            cands = [s for s in active.values() if s.schema == schema.name] if cutoff else []
            for a in attrs:
                v = value(rng, a)
                q = f"{schema.name}/{a.name}"
                if cutoff and cands and rng.random() < 0.5:
                    p = rng.choice(cands).predicate(a.name)
                    if p is not None:  # aim at a remap segment boundary lo + i h (§3.5)
                        cand = p.lo + rng.randint(0, 8) * hs[q]
                        cand = int(cand) if a.type == "int" else cand
                        v = cand if p.lo <= cand <= p.hi else v
                vals.append((a.name, v))
            ev = Event(f"e{seq}", rng.choice(live), schema.name, tuple(sorted(vals)))
            ops.append(Publish(seq, ev))
    config = ThesisConfig(
        capacity_min=1,
        capacity_max=4,
        max_depth=12,
        cutoff=CUTOFF if cutoff else (),
        cutoff_h=CUTOFF_H if cutoff else (),
    )
    return Trace(
        MIXED,
        tuple(ops),
        nodes,
        matching,
        rng.randint(0, 2**31),
        Timing(sub_interarrival_ms=20.0, pub_interarrival_ms=20.0),
        ((SECTION, config),),
        name,
        f"{name}-{profile}",
    )


def zipf(seed: int, index: int, profile: str) -> Trace:
    """The thesis workload (§4.1.2) scaled to the profile; its own seed is drawn from
    (seed, index), so no two (seed, index) pairs share a workload."""
    nodes, n_subs, n_pubs = PROFILES[profile]
    t = thesis_trace(nodes, n_subs / nodes, n_pubs, substream(seed, "zipf", index).getrandbits(48))
    return _rename(t, "zipf", profile, index)


def _rename(t: Trace, name: str, profile: str, index: int) -> Trace:
    from dataclasses import replace

    return replace(t, generator=name, trace_id=f"{name}-{profile}-{index:04d}")


def _gen(
    name: str,
    value: Callable[[random.Random, Attribute], Number],
    *,
    matching: MatchMode = "strict",
    partial: bool = False,
    churn: bool = False,
    cutoff: bool = False,
    identical: bool = False,
) -> Generator:
    def make(seed: int, index: int, profile: str) -> Trace:
        rng = substream(seed, name, index)
        t = _build(
            rng,
            name,
            profile,
            value,
            matching=matching,
            partial=partial,
            churn=churn,
            cutoff=cutoff,
            identical=identical,
        )
        return _rename(t, name, profile, index)

    return make


# OctopiA §VIII: "500 stock symbols ... each stock notification had 10 distinct attributes";
# advertisements and subscriptions "with 2% selectivity" (a symbol range of 10 of 500).
STOCK = Schema(
    "stock",
    (
        Attribute("symbol", "int", 0, 499),
        Attribute("open", "float", 0.0, 1000.0),
        Attribute("high", "float", 0.0, 1000.0),
        Attribute("low", "float", 0.0, 1000.0),
        Attribute("close", "float", 0.0, 1000.0),
        Attribute("bid", "float", 0.0, 1000.0),
        Attribute("ask", "float", 0.0, 1000.0),
        Attribute("volume", "int", 0, 1_000_000),
        Attribute("change", "float", -100.0, 100.0),
        Attribute("day", "int", 0, 365),
    ),
)
SELECTIVITY_SYMBOLS = 10  # 2 % of 500 symbols (§VIII)
PRICES = ("open", "high", "low", "close", "bid", "ask")


def _stock_advert(rng: random.Random, aid: str, publisher: str) -> Advertise:
    """A publisher's advertisement: a block of symbols and a price band (PADRES style)."""
    lo = rng.randint(0, 499 - 19)
    p_lo = round(rng.uniform(0.0, 500.0), 2)
    preds = (
        Predicate("symbol", lo, lo + rng.choice((9, 19))),
        Predicate("close", p_lo, round(p_lo + rng.uniform(100.0, 500.0), 2)),
    )
    return Advertise(0, aid, publisher, "stock", preds)


def _stock_event(rng: random.Random, eid: str, adv: Advertise, aim: Subscription | None) -> Event:
    """A quote conforming to `adv` (OctopiA A7): its constrained attributes inside its ranges,
    the others anywhere in their domains; all 10 attributes present. Aimed at `aim` (if given)
    where its ranges and the advertisement's intersect, so that deliveries happen."""
    vals: list[tuple[str, Number]] = []
    # the first predicate of each attribute (as `Subscription.predicate`), looked up once
    ranges: dict[str, Predicate] = {}
    for q in adv.predicates:
        ranges.setdefault(q.attribute, q)
    aimed: dict[str, Predicate] = {}
    for q in aim.predicates if aim is not None else ():
        aimed.setdefault(q.attribute, q)
    for a in STOCK.attributes:
        p = ranges.get(a.name)
        s = aimed.get(a.name)
        lo, hi = (p.lo, p.hi) if p is not None else (a.min, a.max)
        if s is not None and max(lo, s.lo) <= min(hi, s.hi):
            p = Predicate(a.name, max(lo, s.lo), min(hi, s.hi))
        if p is None:
            vals.append((a.name, _uniform(rng, a)))
        elif a.type == "int":
            vals.append((a.name, rng.randint(int(p.lo), int(p.hi))))
        else:
            vals.append((a.name, round(rng.uniform(p.lo, p.hi), 2)))
    return Event(eid, adv.publisher, "stock", tuple(sorted(vals)))


def _stock_subscription(
    rng: random.Random, sid: str, subscriber: str, hot: list[Advertise]
) -> Subscription:
    """2 % selectivity on the symbol (§VIII), often aimed at an advertised block so that
    deliveries happen, sometimes with a price band or a volume floor."""
    if hot and rng.random() < 0.9:
        p = rng.choice(hot).predicates[0]
        lo = max(0, rng.randint(int(p.lo), int(p.hi)) - SELECTIVITY_SYMBOLS // 2)
    else:
        lo = rng.randint(0, 499)
    hi = min(499, lo + SELECTIVITY_SYMBOLS - 1)
    preds = [Predicate("symbol", lo, hi)]
    if rng.random() < 0.3:
        a = rng.choice(PRICES)
        x = round(rng.uniform(0.0, 900.0), 2)
        preds.append(Predicate(a, x, round(x + rng.uniform(50.0, 600.0), 2) if x < 400 else 1000.0))
    if rng.random() < 0.2:
        preds.append(Predicate("volume", rng.randint(0, 500_000), 1_000_000))
    return Subscription(sid, subscriber, "stock", tuple(preds))


def _stock(
    rng: random.Random, name: str, profile: str, *, burst: bool
) -> tuple[list[Op], int, Timing, tuple[tuple[str, object], ...]]:
    """The ops of the stock workload. Each publisher advertises before it publishes; a quote
    names its advertisement in `adv` half of the time; a publisher may withdraw one
    advertisement and issue another (unadvertise, advertise); some subscriptions end.
    With `burst`, one High Rate Publisher n0 (§VIII "Dynamic Notification Routing") sends
    most quotes, all subscriptions first, at a rate that overloads its broker's output queues
    on a small SCOT (path-3 x K3, ω = 5 ms): IDR must detour (§VII-B)."""
    nodes, n_subs, n_pubs = PROFILES[profile]
    n_publishers = max(2, nodes // 4)
    publishers = [f"n{i}" for i in range(n_publishers)]
    ops: list[Op] = []
    seq = 0

    def add(op: Op) -> None:  # numbered in order (an op made with its number is kept as is)
        nonlocal seq
        seq += 1
        ops.append(op if op.seq == seq else _with_seq(op, seq))

    adverts: dict[str, list[Advertise]] = {p: [] for p in publishers}
    n_adv = 0

    def advertise(pub: str) -> Advertise:
        nonlocal n_adv
        n_adv += 1
        adv = _with_seq(_stock_advert(rng, f"a{n_adv}", pub), seq + 1)
        add(adv)
        adverts[pub].append(adv)
        return adv

    for pub in publishers:
        for _ in range(rng.randint(1, 2)):
            advertise(pub)
    hot = [a for p in publishers for a in adverts[p]]
    if burst:
        hot = adverts["n0"]
    active: list[str] = []
    subs: dict[str, Subscription] = {}
    n_events = n_pubs * 3 if burst else n_pubs
    kinds = ["sub"] * n_subs + ["unsub"] * max(1, n_subs // 10)
    if burst:  # subscriptions registered before the burst starts (§VIII)
        kinds = [k for k in kinds if k == "sub"] + ["pub"] * n_events
        kinds.insert(len(kinds) - n_events // 2, "unsub")
    else:
        kinds += ["pub"] * n_events + ["readvertise"] * max(1, n_publishers // 2)
        rng.shuffle(kinds)
    n_ev = 0
    for kind in kinds:
        if kind == "sub":
            subscriber = f"n{rng.randrange(nodes)}"
            sub = _stock_subscription(rng, f"s{seq + 1}", subscriber, hot)
            add(Subscribe(seq + 1, sub))
            active.append(sub.id)
            subs[sub.id] = sub
        elif kind == "unsub" and active:
            add(Unsubscribe(seq + 1, active.pop(rng.randrange(len(active)))))
        elif kind == "readvertise":
            pub = rng.choice(publishers)
            old = adverts[pub].pop(rng.randrange(len(adverts[pub])))
            advertise(pub)  # the new one first: the publisher always has one
            add(Unadvertise(seq + 1, old.id))
        elif kind == "pub":
            pub = "n0" if burst and rng.random() < 0.9 else rng.choice(publishers)
            adv = rng.choice(adverts[pub])
            n_ev += 1
            aim = subs[rng.choice(active)] if active and rng.random() < 0.5 else None
            ev = _stock_event(rng, f"e{n_ev}", adv, aim)
            add(Publish(seq + 1, ev, adv.id if rng.random() < 0.5 else None))
    thesis = ThesisConfig(capacity_min=1, capacity_max=4, max_depth=12)
    sections: tuple[tuple[str, object], ...] = ((SECTION, thesis),)
    timing = Timing(sub_interarrival_ms=20.0, pub_interarrival_ms=20.0)
    if burst:
        fig7 = path_factor(3)
        octopia = OctopiaConfig(
            acyclic_edges=fig7.edges,
            m=3,
            link_service_ms=1.0,
            window_ms=5.0,
            attach=(("n0", "b", 2),),
        )
        sections = tuple(
            sorted([*sections, *((s, octopia) for s in ("octopia-idr", "octopia-snr", "tid"))])
        )
        timing = Timing(sub_interarrival_ms=50.0, pub_interarrival_ms=0.25)
    return ops, nodes, timing, sections


_with_seq = with_seq  # generators_power.py


def _stock_gen(name: str, *, burst: bool) -> Generator:
    def make(seed: int, index: int, profile: str) -> Trace:
        rng = substream(seed, name, index)
        ops, nodes, timing, sections = _stock(rng, name, profile, burst=burst)
        t = Trace(
            (STOCK,),
            tuple(ops),
            nodes,
            "strict",
            rng.randint(0, 2**31),
            timing,
            sections,
            name,
            name,
        )
        return _rename(t, name, profile, index)

    return make


GENERATORS: dict[str, Generator] = {
    "zipf": zipf,
    "uniform": _gen("uniform", _uniform),
    "boundaries": _gen("boundaries", _boundary),
    "identical": _gen("identical", _boundary, identical=True),
    "cutoff": _gen("cutoff", _uniform, cutoff=True),
    "partial-lenient": _gen("partial-lenient", _boundary, matching="lenient", partial=True),
    "partial-strict": _gen("partial-strict", _uniform, partial=True),
    "churn": _gen("churn", _uniform, churn=True),
    "octopia-stock": _stock_gen("octopia-stock", burst=False),
    "octopia-burst": _stock_gen("octopia-burst", burst=True),
    # aimed at realistic faults: representation, shared names, churn x lenient, mixes
    **POWER_GENERATORS,
}
