"""Step vectors: one protocol handler of one node as pre-state, input, post-state and sends
(docs/steps.md). Each system plugs in with a module `conformance/steps/<system>.py` defining
`SYSTEM`, a `StepSystem` (conformance/steps/base.py), listed in `BUILTIN` below; systems that
share a module (kyra with siena and mcgroups; octopia-snr, octopia-idr and tid; tam with
tam-basic) are in its `SYSTEMS`, by name, and in `MODULE_OF`."""

from __future__ import annotations

import importlib

from pubsub_spec.conformance.steps.base import StepSystem

# The systems with step vectors, in the order they are generated and reported.
BUILTIN: tuple[str, ...] = (
    "thesis", "lbdd", "kyra", "siena", "mcgroups", "octopia-snr", "octopia-idr", "tid", "tam",
    "tam-basic",
)  # fmt: skip
# The module of a system defined in another system's module (its `SYSTEMS[name]`).
MODULE_OF: dict[str, str] = {
    "siena": "kyra", "mcgroups": "kyra", "octopia-snr": "octopia", "octopia-idr": "octopia",
    "tid": "octopia", "tam-basic": "tam",
}  # fmt: skip


def systems() -> dict[str, StepSystem]:
    """Every system's `StepSystem`, by name."""
    out: dict[str, StepSystem] = {}
    for name in BUILTIN:
        module = importlib.import_module(
            f"pubsub_spec.conformance.steps.{MODULE_OF.get(name, name)}"
        )
        system = module.SYSTEMS[name] if hasattr(module, "SYSTEMS") else module.SYSTEM
        assert isinstance(system, StepSystem) and system.name == name, name
        out[name] = system
    return out
