"""Implementations the suite can run: the reference with each delivery strategy, the Python
oracle (a self-test: it must agree with the Spark SQL oracle), and — registered the same way —
optimised variants and outside programs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from reference.config import DeliveryStrategy
from reference.ops import Trace
from reference.oracle import Delivery, expected_deliveries
from reference.run import run_trace

Runner = Callable[[Trace], list[Delivery]]


@dataclass(frozen=True)
class Implementation:
    name: str
    run: Runner
    unavailable: str | None = None  # reason to skip, if it cannot run here


def _reference(delivery: DeliveryStrategy) -> Runner:
    def run(trace: Trace) -> list[Delivery]:
        config = replace(trace.config, delivery=delivery)
        return run_trace(replace(trace, config=config), check=False).deliveries

    return run


def _lbdd_missing() -> str | None:
    try:
        import reference.lbdd  # noqa: F401
    except ImportError:
        return "reference.lbdd is not available"
    return None


def builtin() -> dict[str, Implementation]:
    return {
        "reference": Implementation("reference", _reference("unicast")),
        "reference-multicast": Implementation("reference-multicast", _reference("multicast")),
        "reference-lbdd": Implementation("reference-lbdd", _reference("lbdd"), _lbdd_missing()),
        "oracle-python": Implementation("oracle-python", expected_deliveries),
        "oracle-indexed": Implementation("oracle-indexed", _indexed),
    }


def _indexed(trace: Trace) -> list[Delivery]:
    from conformance.variants.indexed_matcher import indexed_expected

    return indexed_expected(trace)
