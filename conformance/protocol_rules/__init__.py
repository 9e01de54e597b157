"""Protocol rules per claimed system (conformance/OBSERVATIONS.md, "Rules"): one module per
system family, each exporting `RULES: dict[system name, tuple[Rule, ...]]`."""

from __future__ import annotations

from pubsub_spec.conformance.protocol_rules import kyra, octopia, tam, thesis
from pubsub_spec.conformance.protocol_rules.base import Rule

FAMILY_RULES: dict[str, tuple[Rule, ...]] = {
    **thesis.RULES,
    **kyra.RULES,
    **octopia.RULES,
    **tam.RULES,
}
# The systems an implementation may claim in `init_ok` (conformance/PROTOCOL.md, version 2).
CLAIMABLE: tuple[str, ...] = tuple(FAMILY_RULES)
