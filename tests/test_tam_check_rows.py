"""Tam's rows for `pubsub-spec check` (properties/tam/checks.py): `tam` and `tam-basic` agree
with the oracle on Hypothesis churn workloads, and each mutant is rejected."""

from __future__ import annotations

from pubsub_spec.properties.tam.checks import TAM_INV, churn_traces, first_disagreement
from pubsub_spec.properties.tam.checks import rows as tam_rows
from pubsub_spec.properties.tam.mutants import NoRepair
from pubsub_spec.reference.tam.info import TAM


def test_rows_pass_and_mutants_are_rejected() -> None:
    rows = tam_rows(examples=25)  # 5 traces per property, up to 40 per mutant
    assert [r.name for r in rows] == [
        "tam: churn workloads",
        "tam, policy all: churn workloads",
        "tam-basic: churn workloads",
        "mutant Scribe without repair",
        "mutant no seen-list (policy all)",
    ]
    assert all(r.invariant == TAM_INV and r.checker == "Hypothesis" for r in rows)
    for r in rows:
        assert r.ok, (r.name, r.detail)
        if r.name.startswith("mutant"):
            assert r.detail.startswith("rejected: oracle: DISAGREE")
        else:
            assert r.explored == 5 and r.detail == "holds"
    assert " 0 missed" not in rows[3].detail  # no repair: misses
    assert " 0 duplicate" not in rows[4].detail  # no seen-list: duplicates


def test_the_mutant_search_does_not_flag_the_reference() -> None:
    """What makes a mutant row pass (a disagreement) is not what any run of `tam` shows: the
    same derandomized search that rejects Scribe without repair passes the reference."""
    n, found = first_disagreement(NoRepair.for_trace, churn_traces(), 40)
    assert found is not None and " 0 missed" not in found
    assert first_disagreement(TAM.variants[0].make, churn_traces(), n) == (n, None)
