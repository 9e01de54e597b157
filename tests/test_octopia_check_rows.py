"""OctopiA's rows for `pubsub-spec check` (properties/octopia/check_rows.py): SCOT graph
properties, CIV correctness and subgrouping loses no match, each with mutants rejected."""

from __future__ import annotations

from pubsub_spec.properties.octopia.check_rows import (
    CIV_INV,
    SCOT_INV,
    SUBGROUP_INV,
    civ_check,
    subgrouping_check,
    witnesses_then_search,
)
from pubsub_spec.properties.octopia.check_rows import (
    rows as octopia_rows,
)
from pubsub_spec.reference.octopia.system import OctopiaSystem


def test_rows_pass_and_every_mutant_is_rejected() -> None:
    rows = octopia_rows(examples=20)
    by_inv = {inv: [r for r in rows if r.invariant == inv] for inv in (SCOT_INV, CIV_INV)}
    by_inv[SUBGROUP_INV] = [r for r in rows if r.invariant == SUBGROUP_INV]
    assert len(rows) == sum(len(v) for v in by_inv.values()) == 12
    for r in rows:
        assert r.ok, (r.invariant, r.name, r.detail)
        assert r.explored >= 1
        if r.name.startswith("mutant"):
            assert r.detail.startswith("rejected: ")
        else:
            assert r.detail == "holds"
    names = {r.name for r in rows}
    assert {
        "mutant strong product (§III-A)",
        "mutant WrongCibBit",
        "mutant NoCibSet",
        "mutant NoAfpPrtCheck",
        "mutant ShortBroadcast (PRT)",
        "mutant ShortBroadcast (missed deliveries)",
        "mutant subgrouping dropping one",
    } <= names
    missed = next(r for r in rows if r.name == "mutant ShortBroadcast (missed deliveries)")
    assert "DISAGREE" in missed.detail and " 0 missed" not in missed.detail
    # the generated properties ran on the requested counts
    scot = next(r for r in rows if r.name.startswith("Eqs. 1-4"))
    assert (scot.explored, scot.unit) == (20, "examples")


def test_reference_passes_the_mutant_searches() -> None:
    """The searches that reject the mutants find nothing on the reference (a mutant row is not
    passed by a check that flags everything)."""
    assert witnesses_then_search(civ_check(OctopiaSystem), 10) == (12, None)
    assert witnesses_then_search(subgrouping_check(OctopiaSystem), 10) == (12, None)
