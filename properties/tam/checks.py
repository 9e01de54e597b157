"""Tam et al. (DBISP2P 2003) against the oracle on generated traces with churn, for
`pubsub-spec check` (docs/tam.md "Invariants checked"): `tam` (Scribe) and
`tam-basic` (home nodes) deliver exactly the oracle's set on Hypothesis workloads with joins,
leaves and failures (properties.thesis.strategies.workloads, strict matching: T10), and the
mutants of properties.tam.mutants are rejected. Bounded by example counts.

`rows(examples)` returns `properties.verdict.CheckResult` rows."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from hypothesis import strategies as st

from pubsub_spec.properties.tam.mutants import NoRepair, NoSeenList
from pubsub_spec.properties.thesis.strategies import workloads
from pubsub_spec.properties.verdict import CheckResult, Found, first_failure, timed_row
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.sim.run import run_and_compare
from pubsub_spec.reference.tam.config import BASIC_SECTION, SECTION, TamConfig
from pubsub_spec.reference.tam.info import TAM, TAM_BASIC

TAM_INV = "Tam: exactly once against the oracle"


def strict(trace: Trace) -> Trace:
    """Tam supports strict matching only (T10): the workload's lenient draws run strict."""
    return replace(trace, matching="strict")


def with_all_indices(trace: Trace) -> Trace:
    """Policy `all` (§3.6: every applicable index), the case the seen-list exists for."""
    cfg = TamConfig(index_policy="all")
    return trace.with_section(SECTION, cfg).with_section(BASIC_SECTION, cfg)


def churn_traces(shape: Callable[[Trace], Trace] = strict) -> st.SearchStrategy[Trace]:
    """Up to 30 ops on 3-10 peers: subscribe, unsubscribe, publish (partial events too), join,
    leave, failure of up to 2 peers at once; two schemas."""
    return workloads(churn=True, max_ops=30).map(lambda t: shape(strict(t)))


def _disagreement(make: Callable[[Trace], Any], trace: Trace) -> str | None:
    _, c = run_and_compare(trace, make)
    return None if c.agree else c.summary()


def first_disagreement(
    make: Callable[[Trace], Any], traces: st.SearchStrategy[Trace], examples: int
) -> Found:
    """Run up to `examples` generated traces (derandomized, no shrinking) against the oracle;
    (traces run, the first disagreement)."""
    return first_failure(traces, lambda t: _disagreement(make, t), examples)


def plan(examples: int) -> list[tuple[str, bool, Callable[[], Found]]]:
    """(check name, is a mutant, runner). A system run costs more than a lemma: a fifth of
    the section's examples for each property, at least 5."""
    n = max(5, examples // 5)
    tam, basic = TAM.variants[0].make, TAM_BASIC.variants[0].make
    return [
        ("tam: churn workloads", False, lambda: first_disagreement(tam, churn_traces(), n)),
        (
            "tam, policy all: churn workloads",
            False,
            lambda: first_disagreement(tam, churn_traces(with_all_indices), n),
        ),
        ("tam-basic: churn workloads", False, lambda: first_disagreement(basic, churn_traces(), n)),
        (
            "mutant Scribe without repair",
            True,
            lambda: first_disagreement(NoRepair.for_trace, churn_traces(), max(40, 4 * n)),
        ),
        (
            "mutant no seen-list (policy all)",
            True,
            lambda: first_disagreement(
                NoSeenList.for_trace, churn_traces(with_all_indices), max(40, 4 * n)
            ),
        ),
    ]


def rows(examples: int = 40) -> list[CheckResult]:
    """The rows, from at most 40 examples (a trace runs a system)."""
    return [
        timed_row(TAM_INV, "Hypothesis", name, "traces", runner, mutant)
        for name, mutant, runner in plan(min(examples, 40))
    ]
