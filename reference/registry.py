"""The registry of simulated systems: one `SystemInfo` per system package
(docs/design.md#systems). It is the only module of reference/ that imports every system; shared
packages (common, sim, overlay) import none (tests/test_layout.py)."""

from __future__ import annotations

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
