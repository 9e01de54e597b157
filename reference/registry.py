"""The registry of simulated systems: one `SystemInfo` per system package
(docs/design.md#systems). It is the only module of reference/ that imports every system; shared
packages (common, sim, overlay) import none (tests/test_layout.py)."""

from __future__ import annotations

import importlib
import os

from pubsub_spec.reference.kyra.info import KYRA, MCGROUPS, SIENA
from pubsub_spec.reference.octopia.info import OCTOPIA_IDR, OCTOPIA_SNR, TID
from pubsub_spec.reference.sim.system import SystemInfo, Variant
from pubsub_spec.reference.tam.info import TAM, TAM_BASIC
from pubsub_spec.reference.thesis.info import THESIS

SYSTEMS: dict[str, SystemInfo] = {
    s.name: s
    for s in (THESIS, KYRA, SIENA, MCGROUPS, OCTOPIA_SNR, OCTOPIA_IDR, TID, TAM, TAM_BASIC)
}


def system(name: str) -> SystemInfo:
    try:
        return SYSTEMS[name]
    except KeyError:
        known = ", ".join(sorted(SYSTEMS))
        raise KeyError(f"unknown system {name!r} (known: {known})") from None


def variants() -> dict[str, tuple[SystemInfo, Variant]]:
    """Every conformance built-in that runs a simulated system, by built-in name."""
    return {v.builtin: (s, v) for s in SYSTEMS.values() for v in s.variants}


def register(info: SystemInfo) -> None:
    """Add a system at run time (a plugin, a test's toy system): it is then listed by
    `pubsub-spec systems`, run by `simulate --system`, and each of its variants is a conformance
    built-in. Its family's contract (properties/contract.py, `register_contract`) calls this."""
    if info.name in SYSTEMS or any(v.builtin in variants() for v in info.variants):
        raise ValueError(f"system {info.name!r} or one of its variants is already registered")
    SYSTEMS[info.name] = info


def unregister(name: str) -> None:
    """Remove a system added by `register`."""
    del SYSTEMS[name]


# Plugins: modules named (comma-separated) in this environment variable are imported once the
# built-in systems are registered; each registers its own (`register_contract`). Processes
# started by the suite (Spark executors, forked built-ins) inherit the variable, so they know
# the same systems.
PLUGINS_ENV = "PUBSUB_SPEC_SYSTEMS"
for _module in filter(None, os.environ.get(PLUGINS_ENV, "").split(",")):
    importlib.import_module(_module.strip())
