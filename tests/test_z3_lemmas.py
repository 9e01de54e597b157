"""Every z3 lemma is proved; every mutant formulation is rejected with the expected verdict and a
shown counterexample violating the expected conclusion; the prover never calls a contradiction
a proof; and the lemmas' formulas are the reference's (docs/z3-lemmas.md)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pubsub_spec.properties import lemma_mutants
from pubsub_spec.properties.lemmas import (
    INVARIANTS,
    LEMMAS,
    RLIMIT,
    Lemma,
    Remap,
    bit_length,
    floor_hi,
    floor_lo,
    run_all,
    table,
)
from pubsub_spec.properties.z3typed import bv_const, evaluate, integer, prove, real
from pubsub_spec.reference.lbdd.algorithms import bucket_of_distance, slice_bounds
from pubsub_spec.reference.thesis.cutoff import segments


@pytest.mark.parametrize("lemma", LEMMAS, ids=lambda f: f.__name__)
def test_lemma_is_proved(lemma: Lemma) -> None:
    r = lemma()
    assert r.verdict == "proved", (r.name, r.counterexample)
    assert r.invariant in INVARIANTS
    assert r.source, "every lemma cites its source"
    # bounded by z3's deterministic rlimit, not by wall-clock time (docs/z3-lemmas.md)
    assert 0 < r.resources <= RLIMIT


@pytest.mark.parametrize("mutant", lemma_mutants.MUTANTS, ids=lambda f: f.__name__)
def test_mutant_is_rejected(mutant: lemma_mutants.Mutant) -> None:
    r = mutant()
    verdict = lemma_mutants.EXPECTED[mutant.__name__][0]
    labels = lemma_mutants.labels(mutant.__name__)
    assert r.verdict == verdict, (r.name, r.verdict, r.counterexample)
    assert r.counterexample.strip()
    assert lemma_mutants.caught(mutant.__name__, r)
    if labels:
        assert any(c in r.violated for c in labels), (r.name, r.violated)
        assert "violated: " in r.counterexample
        assert " = " in r.counterexample
    else:
        assert r.counterexample.startswith("VACUOUS")


def test_every_lemma_family_has_a_mutant() -> None:
    mutated = {m().invariant for m in lemma_mutants.MUTANTS}
    assert mutated == set(INVARIANTS)
    assert set(lemma_mutants.EXPECTED) == {m.__name__ for m in lemma_mutants.MUTANTS}


def test_vacuous_premises_are_not_a_proof() -> None:
    x = real("x")
    o = prove({"x > 1": x > 1, "x < 0": x < 0, "x = x": x.eq(x)}, x.eq(x))
    assert o.verdict == "vacuous"
    assert "x > 1" in o.model and "x < 0" in o.model and "x = x" not in o.model


def test_counterexample_prints_rationals_as_fractions() -> None:
    x = real("x")
    o = prove([x > 0, x < 1], x.eq(Fraction(1, 3)) >> (x > 1))
    assert o.verdict == "counterexample"
    assert "x = 1/3 (= 0.333333)" in o.model


def test_run_all_covers_every_invariant() -> None:
    results = run_all()
    assert {r.invariant for r in results} == set(INVARIANTS)
    assert all(r.verdict == "proved" for r in results)
    assert len(table(results)) == len(results) + 2


# -- the lemmas speak about the reference's formulas ---------------------------------------
def test_slice_formula_is_the_reference_one() -> None:
    j, m, k = integer("j"), integer("m"), integer("k")
    for kk in range(1, 7):
        for mm in range(0, 15):
            for jj in range(kk):
                env = {"j": jj, "m": mm, "k": kk}
                got = (evaluate(floor_lo(j, m, k), env), evaluate(floor_hi(j, m, k), env))
                assert got == slice_bounds(jj, kk, mm)


def test_bucket_formula_is_the_reference_one() -> None:
    for d in [1, 2, 3, 4, 7, 8, 255, 256, 2**31 - 1, 2**31, 2**32 - 1]:
        assert evaluate(bit_length(bv_const(d, 32)), {}) == bucket_of_distance(d)


@pytest.mark.parametrize(
    ("lo", "hi", "c", "h"),
    [(0, 10, 3, 2), (0, 9, 4, 3), (0.5, 9.25, 2.5, 1.75)],
)
def test_remap_points_are_the_reference_segments(lo: float, hi: float, c: float, h: float) -> None:
    segs = segments(lo, hi, c, h)
    r = Remap("real")
    i = integer("i")
    x, y, closed = r.point(i)
    for s in segs:
        env = {"l": lo, "u": hi, "h": h, "n": len(segs), "i": s.index}
        assert (evaluate(x, env), evaluate(y, env), evaluate(closed, env)) == (
            Fraction(s.lo),
            Fraction(s.hi),
            s.closed,
        )
