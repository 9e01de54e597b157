"""Generators aimed at the faults a realistic implementation makes (docs/conformance.md, "What
the default set catches"): representation (values one ulp either side of every bound,
bounds with 17 significant digits, int domains beyond 2^24 and up to 2^53 - 1, subnormals, -0.0
against a bound of 0.0, very wide and very narrow ranges), schemas that share attribute names,
churn mixed with lenient matching and multi-node failures, a mix of every concern in one
trace, and degenerate but valid traces (the smallest int domains, more nodes than values or a
single node, zero-width ranges at the domain ends, every subscription of a schema the same).
Each is a pure function of (seed, index, profile) drawing from its own generator, like those of
conformance/generators.py, and both oracles agree on its output.

The numbers stay inside what the format guarantees every mainstream JSON reader honours
(conformance/FORMAT.md, "Numbers"): doubles written in their shortest round-trip form, ints within
+-(2^53 - 1)."""

from __future__ import annotations

import dataclasses
import functools
import math
import random
from collections.abc import Callable
from typing import TypeVar

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
    Trace,
    Unsubscribe,
)
from pubsub_spec.reference.sim.seeds import substream

Generator = Callable[[int, int, str], Trace]
SIZES = {  # as generators.PROFILES
    "tiny": (6, 12, 12),
    "small": (16, 40, 40),
    "medium": (60, 200, 300),
    "large": (120, 400, 600),
}
MAX_SAFE = 2**53 - 1
# Nodes failing at once in a churn trace: a conformance trace stays within the replication bound,
# where no subscription may be lost (docs/design.md#churn; thesis §3.6: k = 2 replicas beside
# the home, so two simultaneous failures leave a copy). Decision G-FAIL in docs/conformance.md.
MAX_FAILED = 2

# Representation: a wide float domain, a narrow one around 0 (subnormals, -0.0), an int domain
# at the edge of exact doubles, and one just past float32's exact ints (2^24).
PRECISION = Schema(
    "p",
    (
        Attribute("wide", "float", -1.0e6, 1.0e6),
        Attribute("narrow", "float", -1.0, 1.0),
        Attribute("big", "int", -MAX_SAFE, MAX_SAFE),
        Attribute("mid", "int", 0, 2**24 + 4096),
    ),
)
# Schemas that share attribute names (a matcher that ignores the schema delivers across them).
SHARED = (
    Schema("quote", (Attribute("price", "float", 0.0, 500.0), Attribute("volume", "int", 0, 1000))),
    Schema("trade", (Attribute("price", "float", 0.0, 500.0), Attribute("volume", "int", 0, 1000))),
    Schema("order", (Attribute("price", "float", 100.0, 200.0), Attribute("side", "int", 0, 1))),
)


def _digits17(rng: random.Random, a: Attribute) -> Number:
    """A value inside the domain with all 17 significant digits of a double in play."""
    if a.type == "int":
        lo, hi = int(a.min), int(a.max)
        pick = rng.choice([lo, hi, rng.randint(lo, hi), 2**24 + 1, -(2**24) - 1, MAX_SAFE - 1])
        return min(max(pick, lo), hi)
    span = float(a.max) - float(a.min)
    special = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, float(a.min), float(a.max)]
    v = rng.choice(special) if rng.random() < 0.3 else float(a.min) + rng.random() * span
    return min(max(v, float(a.min)), float(a.max))


def _near(rng: random.Random, a: Attribute, bound: Number) -> Number:
    """The bound itself or its neighbour one ulp (one unit, for ints) either side, clamped to
    the domain: where float32, a tolerance or fixed-point decimals decide wrongly."""
    if a.type == "int":
        v: Number = int(bound) + rng.choice([-1, 0, 1])
    else:
        step = rng.choice([-math.inf, 0.0, math.inf])
        v = float(bound) if step == 0.0 else math.nextafter(float(bound), step)
    v = min(max(v, a.min), a.max)
    return int(v) if a.type == "int" else float(v)


def _range(rng: random.Random, a: Attribute) -> tuple[Number, Number]:
    shape = rng.random()
    if shape < 0.2:  # very narrow: one value, or two adjacent doubles
        v = _digits17(rng, a)
        w = v if a.type == "int" else min(math.nextafter(float(v), math.inf), float(a.max))
        return v, w
    if shape < 0.35:  # very wide: the whole domain or all but one ulp
        if a.type == "int":
            return int(a.min), int(a.max) - rng.choice([0, 1])
        return float(a.min), math.nextafter(float(a.max), -math.inf)
    lo, hi = sorted((_digits17(rng, a), _digits17(rng, a)))
    return lo, hi


def _build(
    rng: random.Random,
    profile: str,
    schemas: tuple[Schema, ...],
    *,
    matching: MatchMode,
    partial: bool,
    churn: bool,
    aim: float,
) -> tuple[tuple[Op, ...], int]:
    """Ops over `schemas`; `aim` is the share of event values placed at or one ulp beside a
    bound of an active subscription."""
    nodes, n_subs, n_pubs = SIZES[profile]
    live = [f"n{i}" for i in range(nodes)]
    joined = nodes
    active: dict[str, Subscription] = {}
    kinds = ["sub"] * n_subs + ["pub"] * n_pubs + ["unsub"] * max(1, n_subs // 8)
    if churn:
        kinds += ["churn"] * max(3, n_pubs // 4)
    rng.shuffle(kinds)
    ops: list[Op] = []
    for seq, kind in enumerate(kinds, start=1):
        schema = rng.choice(schemas)
        if kind == "sub":
            attrs = rng.sample(schema.attributes, rng.randint(1, len(schema.attributes)))
            preds = tuple(Predicate(a.name, *_range(rng, a)) for a in attrs)
            sub = Subscription(f"s{seq}", rng.choice(live), schema.name, preds)
            active[sub.id] = sub
            ops.append(Subscribe(seq, sub))
        elif kind == "unsub" and active:
            gone_id = rng.choice(sorted(active))
            del active[gone_id]
            ops.append(Unsubscribe(seq, gone_id))
        elif kind == "churn":
            r = rng.random()
            if r < 0.3 or len(live) <= 4:
                name = f"n{joined}"
                joined += 1
                live.append(name)
                ops.append(Join(seq, name))
            else:
                count = 1 if r < 0.55 else rng.randint(2, min(3, len(live) - 3))
                # at most MAX_FAILED at once: within the replication bound (docs/design.md#churn;
                # docs/conformance.md, decision G-FAIL); the draw is kept so that traces
                # without a larger failure are unchanged
                gone = rng.sample(live, count)[:MAX_FAILED]
                count = len(gone)
                for n in gone:
                    live.remove(n)
                for sid in [s for s, sub in active.items() if sub.subscriber in gone]:
                    del active[sid]
                op: Op = Leave(seq, gone[0]) if count == 1 else Fail(seq, tuple(sorted(gone)))
                ops.append(op)
        elif kind == "pub":
            attrs = list(schema.attributes)
            if partial:
                attrs = rng.sample(attrs, rng.randint(1, len(attrs)))
            targets = [s for s in active.values() if s.schema == schema.name]
            values: list[tuple[str, Number]] = []
            for a in attrs:
                v = _digits17(rng, a)
                if targets and rng.random() < aim:
                    p = rng.choice(targets).predicate(a.name)
                    if p is not None:
                        v = _near(rng, a, rng.choice([p.lo, p.hi]))
                values.append((a.name, v))
            values.sort()
            ops.append(Publish(seq, Event(f"e{seq}", rng.choice(live), schema.name, tuple(values))))
    renumbered = tuple(_with_seq(op, i) for i, op in enumerate(ops, start=1))
    return renumbered, nodes


OpT = TypeVar("OpT", bound=Op)


@functools.cache
def _after_seq(kind: type) -> tuple[str, ...]:
    """The fields of an op class after its first, the seq (reference/common/ops.py)."""
    names = tuple(f.name for f in dataclasses.fields(kind))
    if names[:1] != ("seq",):
        raise TypeError(f"{kind.__name__}: its first field is not seq")
    return names[1:]


def with_seq(op: OpT, seq: int) -> OpT:
    """`dataclasses.replace(op, seq=seq)`, made again from its other fields in order: the
    same op at a third of `replace`'s cost (every generated op is renumbered once)."""
    kind: type = type(op)
    made: OpT = kind(seq, *(getattr(op, f) for f in _after_seq(kind)))
    return made


_with_seq = with_seq


def _gen(
    name: str,
    schemas: tuple[Schema, ...],
    *,
    matching: MatchMode = "strict",
    partial: bool = False,
    churn: bool = False,
    aim: float = 0.7,
) -> Generator:
    def make(seed: int, index: int, profile: str) -> Trace:
        rng = substream(seed, name, index)
        ops, nodes = _build(
            rng, profile, schemas, matching=matching, partial=partial, churn=churn, aim=aim
        )
        return Trace(
            schemas,
            ops,
            nodes,
            matching,
            rng.randint(0, 2**31),
            generator=name,
            trace_id=f"{name}-{profile}-{index:04d}",
        )

    return make


# Degenerate but valid traces (docs/conformance.md, "degenerate"): int attributes with the
# fewest values a domain may have (FORMAT.md: min < max, so 2; and 3), first in their schema so
# that they are the default partition attribute of Kyra (Cao & Singh, INFOCOM 2004, §III;
# docs/kyra.md K-D1) and cut by the thesis' 2d-tree, far more nodes than values (or a single
# node), zero-width ranges at the domain ends, and a schema where every subscription is the same.
TINY = (
    Schema(
        "d",
        (
            Attribute("two", "int", 0, 1),
            Attribute("three", "int", -1, 1),
            Attribute("unit", "float", 0.0, 1.0),
        ),
    ),
    Schema("same", (Attribute("tri", "int", 0, 2), Attribute("bit", "int", 7, 8))),
)


def _degenerate_range(rng: random.Random, a: Attribute) -> tuple[Number, Number]:
    """A zero-width range at a domain end (most often), the whole domain, or any range."""
    r = rng.random()
    if r < 0.6:
        v = rng.choice([a.min, a.max])
        return v, v
    if r < 0.8:
        return a.min, a.max
    if a.type == "int":
        lo, hi = sorted(rng.randint(int(a.min), int(a.max)) for _ in range(2))
        return lo, hi
    lo_f, hi_f = sorted(rng.uniform(float(a.min), float(a.max)) for _ in range(2))
    return lo_f, hi_f


def _degenerate_value(rng: random.Random, a: Attribute) -> Number:
    """A domain end (most often) or any value of the domain."""
    if rng.random() < 0.75:
        return rng.choice([a.min, a.max])
    return rng.randint(int(a.min), int(a.max)) if a.type == "int" else rng.uniform(a.min, a.max)


def degenerate(seed: int, index: int, profile: str) -> Trace:
    """Every other trace has a single node, starting with the first `tiny` one (so the committed
    vectors have both shapes); the others have the profile's nodes, many more than the 2 or 3
    values of any int attribute. Schema `d` draws zero-width ranges at the domain ends, whole
    domains and other ranges; in schema `same` every subscription is one drawn conjunction."""
    name = "degenerate"
    rng = substream(seed, name, index)
    nodes, n_subs, n_pubs = SIZES[profile]
    if (index + (profile == "tiny")) % 2 == 1:
        nodes = 1
    live = [f"n{i}" for i in range(nodes)]
    d, same = TINY
    shared = tuple(
        Predicate(a.name, *_degenerate_range(rng, a))
        for a in rng.sample(same.attributes, rng.randint(1, len(same.attributes)))
    )
    active: dict[str, Subscription] = {}
    kinds = ["sub"] * n_subs + ["pub"] * n_pubs + ["unsub"] * max(1, n_subs // 8)
    rng.shuffle(kinds)
    ops: list[Op] = []
    for seq, kind in enumerate(kinds, start=1):
        schema = rng.choice(TINY)
        if kind == "sub":
            if schema is same:
                preds = shared
            else:
                attrs = rng.sample(d.attributes, rng.randint(1, len(d.attributes)))
                preds = tuple(Predicate(a.name, *_degenerate_range(rng, a)) for a in attrs)
            sub = Subscription(f"s{seq}", rng.choice(live), schema.name, preds)
            active[sub.id] = sub
            ops.append(Subscribe(seq, sub))
        elif kind == "unsub" and active:
            gone = rng.choice(sorted(active))
            del active[gone]
            ops.append(Unsubscribe(seq, gone))
        elif kind == "pub":
            values = sorted((a.name, _degenerate_value(rng, a)) for a in schema.attributes)
            ops.append(Publish(seq, Event(f"e{seq}", rng.choice(live), schema.name, tuple(values))))
    renumbered = tuple(_with_seq(op, i) for i, op in enumerate(ops, start=1))
    return Trace(
        TINY,
        renumbered,
        nodes,
        "strict",
        rng.randint(0, 2**31),
        generator=name,
        trace_id=f"{name}-{profile}-{index:04d}",
    )


POWER_GENERATORS: dict[str, Generator] = {
    "precision": _gen("precision", (PRECISION,)),
    "shared-names": _gen("shared-names", SHARED, partial=True, aim=0.4),
    "churn-lenient": _gen(
        "churn-lenient", (*SHARED[:2], PRECISION), matching="lenient", partial=True, churn=True
    ),
    "mixed": _gen("mixed", (PRECISION, *SHARED), partial=True, churn=True),
    # degenerate but valid: the smallest domains, more nodes than values or a single node
    "degenerate": degenerate,
}
