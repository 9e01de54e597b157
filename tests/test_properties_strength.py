"""Strength of the formal checks pinned: every z3 lemma has a mutant of its own and
needs every premise it states (or the premise is declared redundant, with the reason); the z3
budget is a deterministic resource limit with a wide margin; docs/z3-lemmas.md is the rendering
of the code; every TLA+ invariant of the thesis and LBDD specs has a mutant model of its own in
spec/manifest.json (the model's `expect` names the invariant it must violate)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from pubsub_spec.properties import lemma_mutants, lemmas
from pubsub_spec.properties.kyra import lemmas as kyra_lemmas
from pubsub_spec.properties.lemma_page import PAGE, lemma_results, render
from pubsub_spec.properties.tam import lemmas as tam_lemmas
from pubsub_spec.properties.tla import SPEC, load_manifest
from pubsub_spec.properties.z3typed import integer, prove

LEMMA_NAMES = [f.__name__ for f in lemmas.LEMMAS]
HEAVY = {"path_depth_bound"}  # about 5.9 * 10^6 z3 resources per proof: marked slow


def _result(name: str) -> lemmas.LemmaResult:
    return dict(lemma_results())[name]


# -- z3: a mutant per lemma ----------------------------------------------------------------
def test_every_lemma_has_a_mutant_of_its_own() -> None:
    names = {m.__name__ for m in lemma_mutants.MUTANTS}
    assert set(lemma_mutants.BREAKS) == names == set(lemma_mutants.EXPECTED)
    assert set(lemma_mutants.BREAKS.values()) <= set(LEMMA_NAMES)
    missing = set(LEMMA_NAMES) - set(lemma_mutants.BREAKS.values())
    assert not missing, f"lemmas without a mutant of their own: {sorted(missing)}"


@pytest.mark.parametrize("mutant", sorted(lemma_mutants.BREAKS))
def test_mutant_violates_a_conclusion_of_its_lemma(mutant: str) -> None:
    """The conclusion a mutant must violate is one its lemma proves: the mutant weakens that
    very lemma (test_z3_lemmas.py checks that each mutant is rejected)."""
    verdict = lemma_mutants.EXPECTED[mutant][0]
    labels = lemma_mutants.labels(mutant)
    lemma = _result(lemma_mutants.BREAKS[mutant])
    if verdict == "vacuous":
        assert labels == ()
    else:
        assert labels and all(c in lemma.conclusions for c in labels), (mutant, labels)


# -- z3: no lemma follows from fewer premises than it states --------------------------------
def _premise_cases() -> list[object]:
    return [
        pytest.param(n, marks=pytest.mark.slow) if n in HEAVY else pytest.param(n)
        for n in LEMMA_NAMES
    ]


@pytest.mark.parametrize("name", _premise_cases())
def test_each_premise_is_needed_or_declared_redundant(name: str) -> None:
    fn = next(f for f in lemmas.LEMMAS if f.__name__ == name)
    full = _result(name)
    assert full.verdict == "proved"
    for premise in full.premises:
        w = lemmas.weakened(fn, premise)
        assert premise not in w.premises
        if (name, premise) in lemmas.REDUNDANT:
            assert w.verdict == "proved", f"{name}: {premise!r} is not redundant: {w.verdict}"
        else:
            assert w.verdict == "counterexample", (
                f"{name} follows without {premise!r}: drop the premise or list it in "
                f"lemmas.REDUNDANT with the reason it is kept"
            )
            assert w.violated


def test_redundant_table_names_real_premises() -> None:
    for (name, premise), why in lemmas.REDUNDANT.items():
        assert premise in _result(name).premises, (name, premise)
        assert why.strip()


# -- z3: deterministic budget --------------------------------------------------------------
def test_every_lemma_spends_less_than_a_tenth_of_its_budget() -> None:
    for name, r in lemma_results():
        assert r.verdict == "proved", name
        assert 0 < r.resources * 10 <= lemmas.RLIMIT, (name, r.resources)


ORDERS = 20  # seeded shuffles of every lemma, each after a random few mutants


@pytest.mark.slow  # about 20 s: path_depth_bound alone is 0.6 s a run
def test_resource_counts_do_not_depend_on_what_ran_before() -> None:
    """Every z3 check runs in a fresh context (z3typed.prove), so a lemma's count is the same
    whichever lemmas and mutants ran before it in the process. Measured before that: 11.1 M for
    path_depth_bound alone, 6.1 M after the other lemmas, 5.3 M after the Kyra lemmas."""
    counted: list[Callable[[], lemmas.LemmaResult]] = [*lemmas.LEMMAS, *tam_lemmas.LEMMAS]
    noise: list[Callable[[], object]] = [*lemma_mutants.MUTANTS, *tam_lemmas.MUTANTS]
    first: dict[str, int] = {}
    for seed in range(ORDERS):
        rng = random.Random(seed)
        order: list[Callable[[], object]] = [*counted, *kyra_lemmas.LEMMAS]
        rng.shuffle(order)
        for _ in range(3):  # a few mutants (counterexamples: other models) anywhere in it
            order.insert(rng.randrange(len(order) + 1), rng.choice(noise))
        seen: dict[str, int] = {}
        for f in order:
            r = f()
            if isinstance(r, lemmas.LemmaResult) and f in counted:
                assert r.verdict == "proved", (seed, r.name)
                assert 0 < r.resources * 10 <= lemmas.RLIMIT, (seed, r.name, r.resources)
                seen[r.name] = r.resources
            elif isinstance(r, kyra_lemmas.KyraLemma) and f in kyra_lemmas.LEMMAS:
                assert r.verdict == "proved", (seed, r.name)
        assert len(seen) == len(counted), seed
        first = first or seen
        assert seen == first, {n: (first[n], c) for n, c in seen.items() if first[n] != c}


def test_an_exhausted_budget_is_unknown_not_a_verdict() -> None:
    x, y = integer("x"), integer("y")
    premises = {"x, y > 1": (x > 1) & (y > 1)}
    hard = (x * x * x + y * y * y).ne(1729)  # false: 1 + 1728 = 9^3 + 10^3
    tiny = prove(premises, hard, rlimit=200)
    assert tiny.verdict == "unknown" and "rlimit 200" in tiny.model
    assert prove(premises, hard).verdict == "counterexample"  # within the default budget


# -- the page is the code's -----------------------------------------------------------------
def test_z3_page_is_the_rendering_of_the_code() -> None:
    assert PAGE.read_text() == render(), "run: python -m pubsub_spec.properties.lemma_page --write"


# -- TLA+: an own mutant per invariant ------------------------------------------------------
COVERED = ("thesis/", "lbdd/")  # the specs of this round; later systems: add theirs


def _invariants(cfg: Path) -> list[str]:
    text = re.sub(r"\\\*.*", "", cfg.read_text())
    m = re.search(r"INVARIANTS?\s+(.*?)(?:\n[A-Z_]+\b|\Z)", text, re.S)
    assert m, cfg
    return m.group(1).split()


def test_every_tla_invariant_has_a_mutant_of_its_own() -> None:
    models = [m for m in load_manifest() if m.module.startswith(COVERED)]
    modules = {m.module for m in models}
    assert modules >= {"thesis/MCTwoDTree.tla", "thesis/MCCutoffRemap.tla", "lbdd/MCLBDD.tla"}
    for module in modules:
        passing = [m for m in models if m.module == module and m.expect == "pass"]
        assert passing, module
        checked = {i for m in passing for i in _invariants(SPEC / m.cfg)}
        mutants = [m for m in models if m.module == module and m.expect != "pass"]
        rejected = {m.expect for m in mutants}
        assert checked <= rejected, f"{module}: no mutant for {sorted(checked - rejected)}"
        for m in mutants:  # a mutant's cfg checks the invariant it must violate
            assert m.expect in _invariants(SPEC / m.cfg), m.name
