"""Trace generators for the conformance suite, each a pure function of (seed, index, profile):
the thesis' Zipf workload (§4.1.2), a uniform one, and adversarial ones aimed at the places a
implementation gets wrong (DESIGN.md, "Conformance"): identical and corner points, values on
2d-tree zone boundaries and on cut-off remap segment boundaries, wide ranges over the cut-off,
partial events in both matching modes, unsubscription and churn."""

from __future__ import annotations

import random
from collections.abc import Callable

from reference.common.model import (
    Attribute,
    Event,
    MatchMode,
    Number,
    Predicate,
    Schema,
    Subscription,
)
from reference.common.ops import (
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
from reference.thesis.config import SECTION, ThesisConfig
from reference.thesis.workload import thesis_trace

Generator = Callable[[int, int, str], Trace]
PROFILES = {"tiny": (6, 12, 12), "small": (16, 40, 40), "medium": (60, 200, 300)}

MIXED = (
    Schema("s", (Attribute("a", "float", 0.0, 100.0), Attribute("b", "int", 0, 64))),
    Schema("t", (Attribute("x", "float", -1.0, 1.0), Attribute("y", "float", 0.0, 8.0))),
)
CUTOFF = (("s/a", 20.0), ("s/b", 12.0), ("t/x", 0.5), ("t/y", 2.0))
CUTOFF_H = (("s/a", 7.5), ("s/b", 5.0), ("t/x", 0.125), ("t/y", 0.75))


def _rng(seed: int, name: str, index: int) -> random.Random:
    return random.Random(f"{seed}:{name}:{index}")


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
            for a in attrs:
                v = value(rng, a)
                cands = [s for s in active.values() if s.schema == schema.name]
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
    t = thesis_trace(nodes, n_subs / nodes, n_pubs, _rng(seed, "zipf", index).getrandbits(48))
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
        rng = _rng(seed, name, index)
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


GENERATORS: dict[str, Generator] = {
    "zipf": zipf,
    "uniform": _gen("uniform", _uniform),
    "boundaries": _gen("boundaries", _boundary),
    "identical": _gen("identical", _boundary, identical=True),
    "cutoff": _gen("cutoff", _uniform, cutoff=True),
    "partial-lenient": _gen("partial-lenient", _boundary, matching="lenient", partial=True),
    "partial-strict": _gen("partial-strict", _uniform, partial=True),
    "churn": _gen("churn", _uniform, churn=True),
}
