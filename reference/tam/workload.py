"""The workload of Tam et al.'s evaluation (Tam, Azimi and Jacobsen, DBISP2P 2003, §5, Table 2),
as traces: one table of six integer attributes with uniformly drawn values, n subscriptions
followed by n publications, and the index that sets the hit rate.

The paper's copy has lost its digits; decision T16 (docs/tam.md) fixes what is lost:

- the value counts V of the attributes: price 10, volume 10, color 5 (the five colours the
  paper names), size 4, temperature 3, circumference 2 (12,000 distinct value tuples);
- the four indices, one per hit-rate curve (§5, "to enforce a hit rate of ..."): all six
  attributes (100 %), without circumference (50 %), without temperature (33 %), without size
  (25 %); with exact subscriptions and uniform values the hit rate of an index I is
  h(I) = prod over the attributes a not in I of 1/V_a;
- range subscriptions (§5, Fig. 3): with one range, price takes an operator drawn uniformly
  from <, = and > with a constant drawn uniformly from its values; with two ranges volume does
  too; every other attribute is an equality. A strict `< c` at the domain's minimum (or `> c` at
  its maximum) is an empty range (T15): it is drawn, counts in the mean number of keys with 0,
  and is not emitted, so that E[keys per 1-range subscription] = V/3 exactly.

Publishers give every attribute (§5: "publishers specify values for all attributes").
Every draw comes from a seeded sub-stream (reference/sim/seeds.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.common.ops import Op, Publish, Subscribe, Trace
from pubsub_spec.reference.sim.seeds import substream
from pubsub_spec.reference.tam.config import BASIC_SECTION, SECTION, TamConfig

TABLE = "table2"
# T16: the value counts of Table 2's attributes, in the table's order.
TABLE2_VALUES: tuple[tuple[str, int], ...] = (
    ("price", 10),
    ("volume", 10),
    ("color", 5),
    ("size", 4),
    ("temperature", 3),
    ("circumference", 2),
)
# T16: the attribute each lower hit-rate index leaves out (None: the all-attribute index).
HIT_RATE_INDICES: tuple[tuple[str, str | None], ...] = (
    ("100%", None),
    ("50%", "circumference"),
    ("33%", "temperature"),
    ("25%", "size"),
)
RANGE_ATTRIBUTES = ("price", "volume")  # §5, Fig. 3: the first and the second range
OPERATORS = ("<", "=", ">")


def table2_schema(values: Sequence[tuple[str, int]] = TABLE2_VALUES) -> Schema:
    """Table 2: integer attributes, attribute a taking the values 0 .. V_a - 1."""
    return Schema(TABLE, tuple(Attribute(a, "int", 0, v - 1) for a, v in values))


def index_without(schema: Schema, left_out: str | None) -> tuple[str, ...]:
    """The index of every attribute of the table but `left_out` (in the table's order)."""
    return tuple(a.name for a in schema.attributes if a.name != left_out)


def expected_hit_rate(schema: Schema, index: Sequence[str]) -> float:
    """h(I) = prod over the attributes a not in I of 1/V_a (exact subscriptions, uniform
    values): a publication arriving on a subscription's key agrees with it on I and matches
    the other attributes with probability 1/V_a each."""
    return math.prod(
        1.0 / (int(a.max) - int(a.min) + 1) for a in schema.attributes if a.name not in index
    )


def distinct_keys(schema: Schema, index: Sequence[str]) -> int:
    """K: the number of distinct keys of an index with one interval per value (T5)."""
    return math.prod(int(schema.by_name[a].max) - int(schema.by_name[a].min) + 1 for a in index)


@dataclass(frozen=True)
class DrawnRange:
    """One drawn predicate: its operator and constant, and the closed range they give (None
    when it is empty: `< min` or `> max`, T15)."""

    op: str
    c: int
    bounds: tuple[int, int] | None


def draw_range(rng_value: int, rng_op: int, a: Attribute) -> DrawnRange:
    """The predicate `a op c` for op = OPERATORS[rng_op], c = min + rng_value, as a closed
    integer range (strict < and >, T15)."""
    lo, hi = int(a.min), int(a.max)
    c = lo + rng_value
    op = OPERATORS[rng_op]
    if op == "=":
        return DrawnRange(op, c, (c, c))
    if op == "<":
        return DrawnRange(op, c, (lo, c - 1) if c > lo else None)
    return DrawnRange(op, c, (c + 1, hi) if c < hi else None)


def table2_subscription(
    seed: int, i: int, schema: Schema, nodes: int, ranges: int
) -> tuple[Subscription | None, int]:
    """Subscription i: its subscriber uniform over the nodes, an equality on every attribute
    but the first `ranges` of RANGE_ATTRIBUTES, which take a drawn operator (§5, Fig. 3).
    Returns the subscription (None if a range is empty, T15) and its number of digests (the
    product of the values each predicate admits)."""
    rng = substream(seed, "table2-sub", i)
    who = f"n{rng.randrange(nodes)}"
    preds: list[Predicate] = []
    digests = 1
    empty = False
    for a in schema.attributes:
        width = int(a.max) - int(a.min) + 1
        if a.name in RANGE_ATTRIBUTES[:ranges]:
            drawn = draw_range(rng.randrange(width), rng.randrange(len(OPERATORS)), a)
            if drawn.bounds is None:
                empty = True
                digests = 0
                continue
            preds.append(Predicate(a.name, *drawn.bounds))
            digests *= drawn.bounds[1] - drawn.bounds[0] + 1
        else:
            v = int(a.min) + rng.randrange(width)
            preds.append(Predicate(a.name, v, v))
    if empty:
        return None, 0
    return Subscription(f"s{i}", who, schema.name, tuple(preds)), digests


def table2_event(seed: int, j: int, schema: Schema, nodes: int) -> Event:
    """Publication j: every attribute uniform over its values, its publisher uniform."""
    rng = substream(seed, "table2-pub", j)
    who = f"n{rng.randrange(nodes)}"
    values = tuple(
        (a.name, int(a.min) + rng.randrange(int(a.max) - int(a.min) + 1))
        for a in schema.attributes
    )
    return Event(f"e{j}", who, schema.name, values)


@dataclass(frozen=True)
class Table2Workload:
    trace: Trace
    drawn: int  # subscriptions drawn (emitted + empty)
    digests: int  # digests of the drawn subscriptions (an empty one counts 0, T15)


def table2_trace(
    nodes: int,
    n: int,
    seed: int,
    *,
    left_out: str | None = None,
    ranges: int = 0,
    values: Sequence[tuple[str, int]] = TABLE2_VALUES,
    publications: int | None = None,
) -> Table2Workload:
    """n subscriptions, then n publications (or `publications`), on `nodes` peers; the `tam`
    and `tam-basic` sections declare the single index leaving out `left_out` (the hit-rate
    curve, T16)."""
    schema = table2_schema(values)
    ops: list[Op] = []
    digests = 0
    for i in range(n):
        sub, d = table2_subscription(seed, i, schema, nodes, ranges)
        digests += d
        if sub is not None:
            ops.append(Subscribe(len(ops) + 1, sub))
    for j in range(n if publications is None else publications):
        ops.append(Publish(len(ops) + 1, table2_event(seed, j, schema, nodes)))
    config = TamConfig(
        indices=((TABLE, (index_without(schema, left_out),)),),
        fallback=False,
    )
    label = left_out or "all"
    trace = Trace(
        (schema,),
        tuple(ops),
        initial_nodes=nodes,
        matching="strict",
        seed=seed,
        sections=((SECTION, config), (BASIC_SECTION, config)),
        generator="tam-table2",
        trace_id=f"tam-table2-{nodes}x{n}-{label}-r{ranges}-s{seed}",
    )
    return Table2Workload(trace, n, digests)
