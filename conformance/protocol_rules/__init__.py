"""Protocol rules per claimed system (conformance/OBSERVATIONS.md, "Rules"): one module per
system family, each exporting `RULES: dict[system name, tuple[Rule, ...]]` and optionally
`DISSEMINATION` and `SUBSCRIPTION` (system -> the message types that forward an event, that
install a subscription; the cost envelope charges by them) and `STATES` (system -> the state
changes it declares; `generic/declared-types` checks them). The generic rules
(protocol_rules/generic.py) apply to every claimed system before its family's."""

from __future__ import annotations

from types import ModuleType

from pubsub_spec.conformance.protocol_rules import kyra, octopia, tam, thesis
from pubsub_spec.conformance.protocol_rules.base import Rule

_FAMILIES: tuple[ModuleType, ...] = (thesis, kyra, octopia, tam)

FAMILY_RULES: dict[str, tuple[Rule, ...]] = {
    **thesis.RULES,
    **kyra.RULES,
    **octopia.RULES,
    **tam.RULES,
}
# The systems an implementation may claim in `init_ok` (conformance/PROTOCOL.md, version 2).
CLAIMABLE: tuple[str, ...] = tuple(FAMILY_RULES)


def _merged(attribute: str) -> dict[str, frozenset[str]]:
    out: dict[str, frozenset[str]] = {}
    for family in _FAMILIES:
        table = getattr(family, attribute, None) or {}
        out.update({system: frozenset(names) for system, names in table.items()})
    return out


DISSEMINATION: dict[str, frozenset[str]] = _merged("DISSEMINATION")
SUBSCRIPTION: dict[str, frozenset[str]] = _merged("SUBSCRIPTION")
STATES: dict[str, frozenset[str]] = _merged("STATES")
