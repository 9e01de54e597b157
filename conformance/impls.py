"""The registry of implementations the suite can run.

Built in: the reference with each delivery strategy (`reference`, `reference-multicast`,
`reference-lbdd`), the brute-force Python oracle (`oracle-python`, a self-test: it must agree
with the Spark SQL oracle that wrote the expected files) and the optimised variants
(`oracle-indexed`, `reference-array`; more register themselves with `register`). Outside
programs are named by their command line behind the prefix `cmd:` (e.g. `cmd:./my-impl --flag`)
and run over the process protocol (conformance/adapter.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from reference.config import DeliveryStrategy
from reference.ops import Trace
from reference.oracle import Delivery, expected_deliveries

Runner = Callable[[Trace], list[Delivery]]
OUTSIDE_PREFIX = "cmd:"


@dataclass(frozen=True)
class Implementation:
    name: str
    run: Runner  # all deliveries of a trace, duplicates kept
    unavailable: str | None = None  # reason to skip, if it cannot run here


def _reference(delivery: DeliveryStrategy) -> Runner:
    def run(trace: Trace) -> list[Delivery]:
        from reference.run import run_trace

        config = replace(trace.config, delivery=delivery)
        return run_trace(replace(trace, config=config), check=False).deliveries

    return run


def _lbdd_missing() -> str | None:
    try:
        import reference.lbdd  # noqa: F401
    except ImportError:
        return "reference.lbdd is not available"
    return None


def _array_sim(trace: Trace) -> list[Delivery]:
    from conformance.variants.array_sim import array_sim_deliveries

    return array_sim_deliveries(trace)


def _indexed(trace: Trace) -> list[Delivery]:
    from conformance.variants.indexed_matcher import indexed_expected

    return indexed_expected(trace)


_REGISTERED: dict[str, Implementation] = {}


def register(impl: Implementation) -> None:
    """Add an implementation (an optimised variant, a test double) under its name."""
    if impl.name.startswith(OUTSIDE_PREFIX):
        raise ValueError(f"names starting with {OUTSIDE_PREFIX!r} are outside programs")
    _REGISTERED[impl.name] = impl


def builtin() -> dict[str, Implementation]:
    impls = {
        "reference": Implementation("reference", _reference("unicast")),
        "reference-multicast": Implementation("reference-multicast", _reference("multicast")),
        "reference-lbdd": Implementation("reference-lbdd", _reference("lbdd"), _lbdd_missing()),
        "oracle-python": Implementation("oracle-python", expected_deliveries),
        "oracle-indexed": Implementation("oracle-indexed", _indexed),
        "reference-array": Implementation("reference-array", _array_sim),
    }
    impls.update(_REGISTERED)
    return impls


def is_outside(name: str) -> bool:
    return name.startswith(OUTSIDE_PREFIX)


def outside(command: str) -> str:
    """The implementation name of an outside program's command line."""
    return OUTSIDE_PREFIX + command


def outside_command(name: str) -> str:
    return name.removeprefix(OUTSIDE_PREFIX)


def resolve(name: str) -> Implementation | None:
    """A built-in or registered implementation by name (None for unknown or outside names)."""
    return None if is_outside(name) else builtin().get(name)
