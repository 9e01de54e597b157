"""Every z3 lemma is proved; every mutant formulation is rejected with a shown counterexample
(or reported vacuous); the prover never calls a contradiction a proof."""

from __future__ import annotations

import pytest

from properties import lemma_mutants
from properties.lemmas import LEMMAS, run_all
from properties.z3typed import prove, real


@pytest.mark.parametrize("lemma", LEMMAS, ids=lambda f: f.__name__)
def test_lemma_is_proved(lemma: object) -> None:
    r = lemma()  # type: ignore[operator]
    assert r.verdict == "proved", (r.name, r.counterexample)


@pytest.mark.parametrize("mutant", lemma_mutants.MUTANTS, ids=lambda f: f.__name__)
def test_mutant_is_rejected(mutant: object) -> None:
    r = mutant()  # type: ignore[operator]
    assert r.verdict == lemma_mutants.EXPECTED[mutant.__name__], (r.name, r.verdict)  # type: ignore[attr-defined]
    assert r.counterexample.strip()
    print(f"{r.name}: {r.verdict}\n{r.counterexample}")


def test_vacuous_premises_are_not_a_proof() -> None:
    x = real("x")
    assert prove([x > 1, x < 0], x.eq(x)).verdict == "vacuous"


def test_run_all_covers_every_invariant() -> None:
    assert {r.invariant for r in run_all()} == {
        "one-way dissemination",
        "no missed matches under growth-only trees",
        "single delivery with cut-off remapping",
        "bounded tree depth",
    }
