"""LBDD's Hypothesis rows of `pubsub-spec check` (properties/lbdd/contract.py): one-way, single
dissemination (LBDD Theorem 1) on random address sets, and the mutant forwarding within its own
bucket rejected (properties/lbdd/checks.py)."""

from __future__ import annotations

from functools import partial

from pubsub_spec.properties.checks import ONE_WAY
from pubsub_spec.properties.lbdd.checks import address_sets, one_way_violation
from pubsub_spec.properties.verdict import CheckResult, first_failure, timed_row


def rows(examples: int = 200) -> list[CheckResult]:
    out = []
    for broken, name in (
        (False, "LBDD trees on random addresses"),
        (True, "mutant forwarding-within-bucket"),
    ):
        check = partial(one_way_violation, mutant=broken)
        run = partial(first_failure, address_sets, check, examples)
        out.append(timed_row(ONE_WAY, "Hypothesis", name, "examples", run, broken))
    return out
