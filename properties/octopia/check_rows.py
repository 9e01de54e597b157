"""OctopiA's rows for `pubsub-spec check` (docs/octopia.md "Invariants"):
the SCOT product graph (I7), CIV correctness (I4) and "subgrouping loses no match" (I5, with
exactly-once delivery I1), each checked on the reference and on its mutants, which must be
rejected. Every row is bounded by counts (examples, scenarios, traces), never by time.

`rows(examples)` returns `properties.verdict.CheckResult` rows."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from hypothesis import strategies as st

from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.properties.octopia.checks import (
    civ_violations,
    delivery_violations,
    partition_violations,
    scot_violations,
    strong_product_mutant,
    subgrouping_violations,
)
from pubsub_spec.properties.octopia.mutants import (
    NoAfpPrtCheck,
    NoCibSet,
    ShortBroadcast,
    WrongCibBit,
    octopia_factory,
)
from pubsub_spec.properties.verdict import CheckResult, Found, first_failure, timed_row
from pubsub_spec.reference.common.model import Attribute, Predicate, Schema, Subscription
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.octopia.advertisements import Advertisement
from pubsub_spec.reference.octopia.config import OctopiaConfig
from pubsub_spec.reference.octopia.scot import AcyclicFactor, Scot, path_factor
from pubsub_spec.reference.octopia.subscriptions import subgroups
from pubsub_spec.reference.octopia.system import OctopiaSystem

SCOT_INV = "OctopiA: SCOT product graph"
CIV_INV = "OctopiA: CIV correctness"
SUBGROUP_INV = "OctopiA: subgrouping loses no match"

T = TypeVar("T")


def first_violation(
    strategy: st.SearchStrategy[T], check: Callable[[T], list[str]], examples: int
) -> Found:
    """Run `check` on up to `examples` generated values; (values tried, first violation)."""
    return first_failure(strategy, lambda v: next(iter(check(v)), None), examples)


# -- I7: the product graph (§III-A Eqs. 1-4, §IV) -------------------------------------------
@st.composite
def trees(draw: st.DrawFn, min_size: int = 1) -> AcyclicFactor:
    """G_A: a random tree on up to 5 vertices (the Acyclic property, §III-B)."""
    n = draw(st.integers(min_size, 5))
    names = [chr(ord("a") + k) for k in range(n)]
    edges = [(names[draw(st.integers(0, k - 1))], names[k]) for k in range(1, n)]
    return AcyclicFactor(tuple(names), tuple(edges))


def scots(min_tree: int = 1, min_m: int = 1) -> st.SearchStrategy[Scot]:
    return st.builds(Scot, trees(min_tree), st.integers(min_m, 4))


# -- I4, I5: subscription and advertisement scenarios in any arrival order -------------------
CIV_SCHEMA = Schema("q", (Attribute("v", "int", 0, 100), Attribute("w", "int", 0, 100)))
P5 = path_factor(5)
_BROKERS = [(x, i) for i in range(3) for x in P5.vertices]
Scenario = list[tuple[str, int, int, int]]  # ("sub" | "adv", client, lo, width)

scenarios: st.SearchStrategy[Scenario] = st.lists(
    st.tuples(
        st.sampled_from(["sub", "adv"]), st.integers(0, 8), st.integers(0, 100), st.integers(0, 30)
    ),
    min_size=1,
    max_size=12,
)
# Witnesses: subscriptions after the advertisement (SBP's CIB_SET, §VI) and before it
# (scotAFP's PRT check and reply, §V).
WITNESSES: tuple[Scenario, ...] = (
    [("sub", 1, 10, 20), ("adv", 0, 0, 100), ("sub", 2, 50, 10), ("sub", 5, 60, 5)],
    [("sub", 1, 10, 20), ("sub", 2, 50, 10), ("sub", 3, 0, 5), ("adv", 0, 0, 100)],
)


def run_scenario(
    cls: type[OctopiaSystem], ops: Scenario
) -> tuple[OctopiaSystem, list[Subscription]]:
    """Nine clients over path-5 x K3; subscriptions and advertisements on attribute v, run to
    quiescence after every other op (so arrivals interleave)."""
    placed = [_BROKERS[(k * 4) % len(_BROKERS)] for k in range(9)]
    attach = tuple((f"c{k}", x, i) for k, (x, i) in enumerate(placed))
    cfg = OctopiaConfig(acyclic_edges=P5.edges, m=3, attach=attach, implicit_advertisements=False)
    system = cls(Trace(schemas=(CIV_SCHEMA,), ops=(), initial_nodes=1), cfg, "snr")
    subs: list[Subscription] = []
    for n, (kind, c, lo, width) in enumerate(ops):
        pred = (Predicate("v", lo, min(100, lo + width)),)
        if kind == "sub":
            s = Subscription(f"s{n}", f"c{c}", "q", pred)
            subs.append(s)
            system.subscribe(s, n)
        else:
            system.advertise(f"c{c}", Advertisement(f"a{n}", f"c{c}", "q", pred))
        if n % 2 == 0:
            system.run_to_quiescence()
    system.run_to_quiescence()
    return system, subs


def civ_check(cls: type[OctopiaSystem]) -> Callable[[Scenario], list[str]]:
    def check(ops: Scenario) -> list[str]:
        return civ_violations(*run_scenario(cls, ops))

    return check


def subgrouping_check(cls: type[OctopiaSystem]) -> Callable[[Scenario], list[str]]:
    def check(ops: Scenario) -> list[str]:
        return subgrouping_violations(*run_scenario(cls, ops))

    return check


def witnesses_then_search(
    check: Callable[[Scenario], list[str]], examples: int
) -> tuple[int, str | None]:
    """A mutant's search: the fixed witnesses first, then generated scenarios."""
    for k, ops in enumerate(WITNESSES):
        problems = check(ops)
        if problems:
            return k + 1, problems[0]
    n, found = first_violation(scenarios, check, examples)
    return len(WITNESSES) + n, found


# -- I1 on the stock workloads (subgrouping loses no match) ---------------------------------
def stock_traces() -> list[Trace]:
    return [
        GENERATORS["octopia-stock"](0, 0, "tiny"),
        GENERATORS["octopia-stock"](1, 0, "small"),
        GENERATORS["octopia-burst"](0, 0, "small"),
    ]


def exactly_once(make: Callable[[Trace], Any], traces: Iterable[Trace]) -> tuple[int, str | None]:
    n = 0
    for t in traces:
        n += 1
        problems, _ = delivery_violations(t, make)
        if problems:
            return n, f"{t.trace_id}: {problems[0]}"
    return n, None


def subgroup_partition(clusters: list[int]) -> list[str]:
    subs = [
        Subscription(f"s{k}", f"c{c}", "q", (Predicate("v", 0, 1),)) for k, c in enumerate(clusters)
    ]
    return partition_violations(
        subgroups(subs, lambda s: int(s.subscriber[1:]), 3), [s.id for s in subs]
    )


def dropping_partition(clusters: list[int]) -> list[str]:
    """Mutant: a subgrouping that drops the first subscription of every subgroup."""
    subs = [
        Subscription(f"s{k}", f"c{c}", "q", (Predicate("v", 0, 1),)) for k, c in enumerate(clusters)
    ]
    groups = subgroups(subs, lambda s: int(s.subscriber[1:]), 3)
    return partition_violations([g[1:] for g in groups], [s.id for s in subs])


# -- the rows --------------------------------------------------------------------------------
Plan = tuple[str, str, bool, str, Callable[[], tuple[int, str | None]]]


def plan(examples: int) -> list[Plan]:
    """(invariant, check name, is a mutant, unit, runner -> (explored, first violation))."""
    snr = octopia_factory(OctopiaSystem, "octopia-snr", "snr")
    idr = octopia_factory(OctopiaSystem, "octopia-idr", "idr")
    short = octopia_factory(ShortBroadcast, "octopia-snr", "snr")
    n_small = max(1, examples // 4)  # the scenario checks run a system each: fewer examples
    clusters = st.lists(st.integers(0, 2), min_size=1, max_size=10)
    return [
        (
            SCOT_INV,
            "Eqs. 1-4, one secondary nb per cluster",
            False,
            "examples",
            lambda: first_violation(scots(), scot_violations, examples),
        ),
        (
            SCOT_INV,
            "mutant strong product (§III-A)",
            True,
            "examples",
            lambda: first_violation(
                scots(2, 2), lambda s: scot_violations(s, strong_product_mutant(s)), examples
            ),
        ),
        (
            CIV_INV,
            "CIB j iff C_j overlaps; SCB = host bit",
            False,
            "scenarios",
            lambda: first_violation(scenarios, civ_check(OctopiaSystem), n_small),
        ),
        *[
            (
                CIV_INV,
                f"mutant {cls.__name__}",
                True,
                "scenarios",
                (lambda c=cls: witnesses_then_search(civ_check(c), n_small)),
            )
            for cls in (WrongCibBit, NoCibSet, NoAfpPrtCheck)
        ],
        (
            SUBGROUP_INV,
            "PRT = the subscriber's cluster, aLinks",
            False,
            "scenarios",
            lambda: first_violation(scenarios, subgrouping_check(OctopiaSystem), n_small),
        ),
        (
            SUBGROUP_INV,
            "subgroups partition the subscriptions",
            False,
            "examples",
            lambda: first_violation(clusters, subgroup_partition, examples),
        ),
        (
            SUBGROUP_INV,
            "exactly once, stock+burst, SNR and IDR",
            False,
            "traces",
            lambda: _both(exactly_once(snr, stock_traces()), exactly_once(idr, stock_traces())),
        ),
        (
            SUBGROUP_INV,
            "mutant ShortBroadcast (PRT)",
            True,
            "scenarios",
            lambda: witnesses_then_search(subgrouping_check(ShortBroadcast), n_small),
        ),
        (
            SUBGROUP_INV,
            "mutant ShortBroadcast (missed deliveries)",
            True,
            "traces",
            lambda: exactly_once(short, stock_traces()),
        ),
        (
            SUBGROUP_INV,
            "mutant subgrouping dropping one",
            True,
            "examples",
            lambda: first_violation(clusters, dropping_partition, examples),
        ),
    ]


def _both(a: Found, b: Found) -> Found:
    return a[0] + b[0], a[1] or b[1]


def rows(examples: int = 40) -> list[CheckResult]:
    """The rows, at most 40 examples each (a scenario runs a system)."""
    return [
        timed_row(invariant, "Hypothesis", name, unit, runner, mutant)
        for invariant, name, mutant, unit, runner in plan(min(examples, 40))
    ]
