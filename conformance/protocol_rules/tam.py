"""Protocol rules of the tam family (systems: tam, tam-basic);
see conformance/OBSERVATIONS.md."""

from __future__ import annotations

from pubsub_spec.conformance.protocol_rules.base import Rule

# claimed system name -> its rules (beside the generic ones of protocol_rules/generic.py)
RULES: dict[str, tuple[Rule, ...]] = {name: () for name in ("tam", "tam-basic")}
