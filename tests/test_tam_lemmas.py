"""Tam's z3 lemmas (properties/tam/lemmas.py): each proved, each mutant rejected with a
counterexample to the named conclusion, and the lemma's label rule is the reference's."""

from __future__ import annotations

import random

import pytest

from pubsub_spec.properties.lemmas import LemmaResult
from pubsub_spec.properties.tam.lemmas import LEMMAS, MUTANTS
from pubsub_spec.reference.tam.tables import Intervals


@pytest.mark.parametrize("lemma", LEMMAS, ids=lambda f: f.__name__)
def test_lemma_is_proved(lemma: object) -> None:
    assert callable(lemma)
    r = lemma()
    assert isinstance(r, LemmaResult)
    assert r.verdict == "proved", (r.name, r.counterexample)
    assert r.source


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda f: f.__name__)
def test_mutant_is_rejected(mutant: object) -> None:
    assert callable(mutant)
    r = mutant()
    assert isinstance(r, LemmaResult)
    assert r.verdict == "counterexample" and r.violated, r.name


def test_the_lemma_label_is_the_reference_label() -> None:
    """Lemma rule: the number of cut points <= v (T5); reference: `Intervals.label`."""
    rng = random.Random(0)
    for _ in range(300):
        cuts = tuple(sorted(rng.sample(range(1, 50), 3)))
        v = rng.choice([*cuts, rng.randint(0, 50), rng.uniform(0, 50)])
        assert Intervals(cuts).label(v) == sum(c <= v for c in cuts)
