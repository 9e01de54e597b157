"""Kyra's z3 lemmas are proved (not vacuously) and each mutant gets a counterexample."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pubsub_spec.properties.kyra.lemmas import LEMMAS, MUTANTS, KyraLemma


@pytest.mark.parametrize("lemma", LEMMAS)
def test_lemma_proved(lemma: Callable[[], KyraLemma]) -> None:
    r = lemma()
    assert r.verdict == "proved", (r.name, r.counterexample)


@pytest.mark.parametrize("mutant", MUTANTS)
def test_mutant_rejected(mutant: Callable[[], KyraLemma]) -> None:
    r = mutant()
    assert r.verdict == "counterexample", (r.name, r.verdict)
    assert r.counterexample
