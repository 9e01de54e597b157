"""Kyra's HAC and MST rows of `pubsub-spec check` hold, and each mutant row is a rejection."""

from __future__ import annotations

from pubsub_spec.properties.kyra.rows import rows as run_kyra_property_checks


def test_kyra_property_rows_hold_and_reject_every_mutant() -> None:
    rows = run_kyra_property_checks(examples=120)
    assert len(rows) == 7 and all(r.ok for r in rows), [r for r in rows if not r.ok]
    assert sum(r.detail.startswith("rejected") for r in rows) == 5


def test_mutant_rows_do_not_depend_on_the_examples_asked_for() -> None:
    """`check --examples 10` once left the size-check mutant unrejected (too few cases): mutant
    rows always get at least MUTANT_MIN_EXAMPLES cases."""
    for examples in (1, 10):
        rows = run_kyra_property_checks(examples=examples)
        assert all(r.ok for r in rows), [r for r in rows if not r.ok]
        assert all(r.explored >= 200 for r in rows if r.name.startswith("mutant"))
