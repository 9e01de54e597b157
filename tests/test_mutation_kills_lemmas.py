"""Tests that kill mutants of properties/lemmas.py found by scripts/mutation.py
(docs/mutation.md).

A lemma can be weakened without failing its proof: a premise made stronger (a case left out)
still proves. The existing tests catch premises that can be dropped and formulations that are
wrong; these catch premises that shrink the lemma's domain. Each lemma's statement is captured
(premises and conclusions as z3 terms, without running z3) and evaluated on boundary instances
that the papers name; each instance must satisfy every premise (the lemma speaks about it) and
every conclusion (it is a true instance).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pytest

from pubsub_spec.properties import lemmas
from pubsub_spec.properties.z3typed import T, evaluate
from pubsub_spec.reference.lbdd.algorithms import slice_bounds
from pubsub_spec.reference.thesis.cutoff import segments


class _Captured(Exception):
    def __init__(
        self, premises: Mapping[str, T], conclusions: Mapping[str, T], show: Mapping[str, T]
    ) -> None:
        super().__init__("captured")
        self.premises, self.conclusions, self.show = dict(premises), dict(conclusions), dict(show)


def statement(
    lemma: Callable[[], lemmas.LemmaResult], monkeypatch: pytest.MonkeyPatch
) -> _Captured:
    """The premises and conclusions `lemma` hands to `lemmas.check`, without proving them."""

    def capture(
        name: str,
        invariant: str,
        source: str,
        premises: Mapping[str, T],
        conclusions: Mapping[str, T],
        show: Mapping[str, T] | None = None,
    ) -> lemmas.LemmaResult:
        raise _Captured(premises, conclusions, show or {})

    monkeypatch.setattr(lemmas, "check", capture)
    with pytest.raises(_Captured) as info:
        lemma()
    return info.value


# (lemma, instance, why the instance belongs to the lemma)
BOUNDARY: list[tuple[Callable[[], lemmas.LemmaResult], dict[str, int], str]] = [
    (
        lemmas.range_point_mapping,
        {"min": 0, "max": 10, "l": 0, "u": 0, "v": 0},
        "an equality [v, v] at the domain min matches v (docs/design.md#subscription)",
    ),
    (
        lemmas.split_partitions_zone,
        {
            "depth": 0,
            "domain_min": 0,
            "domain_max": 8,
            "x_lo": 0,
            "x_hi": 8,
            "y_lo": 0,
            "y_hi": 8,
            "px": 8,
            "py": 0,
            "mid": 4,
        },
        "the root zone (depth 0) and a point on the domain max, in the closed top child",
    ),
    (
        lemmas.split_partitions_zone,
        {
            "depth": 1,
            "domain_min": 0,
            "domain_max": 8,
            "x_lo": 0,
            "x_hi": 4,
            "y_lo": 0,
            "y_hi": 8,
            "px": 1,
            "py": 4,
            "mid": 4,
        },
        "a y level (odd depth) and a point on mid, in child 1 = [mid, hi] (Program 3.1)",
    ),
    (
        lemmas.split_partitions_zone,
        {
            "depth": 2,
            "domain_min": 0,
            "domain_max": 8,
            "x_lo": 0,
            "x_hi": 4,
            "y_lo": 4,
            "y_hi": 8,
            "px": 2,
            "py": 5,
            "mid": 2,
        },
        "depth 2 splits on x again: mid is the x midpoint (docs/design.md#core: x when d is even)",
    ),
    (
        lemmas.thesis_midpoint_only_at_zero,
        {"minx": 0, "maxx": 8},
        "the root of a [0, max] domain, where Program 3.2's line is right (erratum E1)",
    ),
    (
        lemmas.lbdd_slices_shape,
        {"k": 1, "m": 0, "i": 0, "j": 0},
        "one sender and an empty target bucket (Algorithm 2 with m = 0)",
    ),
    (
        lemmas.lbdd_slices_cover,
        {"k": 2, "m": 3, "t": 0, "i": 0, "j": 1},
        "rank 0, the first node of the target bucket, has a father (LBDD Theorem 1)",
    ),
    (
        lemmas.lbdd_slices_cover,
        {"k": 2, "m": 3, "t": 2, "i": 0, "j": 1},
        "rank m - 1, the last node of the target bucket, has a father",
    ),
    (
        lemmas.lbdd_slices_cover,
        {"k": 3, "m": 1, "t": 0, "i": 1, "j": 2},
        "more senders than targets (k > m): slices may be empty (Algorithm 2, LBDD-E1)",
    ),
    (
        lemmas.lbdd_slices_cover,
        {"k": 1, "m": 3, "t": 2, "i": 0, "j": 0},
        "one sender (k = 1): its single slice [0, m) holds every rank (Theorem 1)",
    ),
]
# thesis §3.5 / D-SEG: [0, 10] with c = 4, h = 3 is [0,3) [3,6) [6,9) [9,10], n = 4
_REMAP = {"l": 0, "u": 10, "c": 4, "h": 3, "n": 4, "min": 0, "max": 10}
_CUTOFF = {
    "exists": (
        {**_REMAP, "v": 10},
        "v = u, delivered by the closed last segment",
    ),
    "unique": (
        {**_REMAP, "v": 9, "i": 2, "j": 3},
        "v on the boundary a_3 = 9 of segments 2 and 3 (erratum E3)",
    ),
    "no_spurious": (
        {**_REMAP, "l": 1, "v": 0, "n": 3, "i": 0},
        "v just below l (l = 1, u = 10: n = 3 segments of h = 3)",
    ),
    "below": ({**_REMAP, "v": 0, "i": 3}, "the last segment i = n - 1"),
    "unremapped": (
        {"l": 0, "u": 4, "c": 4, "v": 4, "min": 0, "max": 10},
        "u - l = c: on the cut-off line, kept as one point",
    ),
}
for _f in lemmas.LEMMAS:
    for _kind, (_inst, _why) in _CUTOFF.items():
        if _f.__name__.startswith(f"cutoff_{_kind}_"):
            BOUNDARY.append((_f, _inst, _why))


@pytest.mark.parametrize(
    ("lemma", "instance", "why"),
    BOUNDARY,
    ids=[f"{f.__name__}-{i}" for i, (f, _, _) in enumerate(BOUNDARY)],
)
def test_boundary_instance_is_inside_the_lemma(
    lemma: Callable[[], lemmas.LemmaResult],
    instance: dict[str, int],
    why: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    st = statement(lemma, monkeypatch)
    for name, p in st.premises.items():
        assert evaluate(p, instance) is True, (why, "premise", name)
    for name, c in st.conclusions.items():
        assert evaluate(c, instance) is True, (why, "conclusion", name)


def test_depth_bound_speaks_about_the_node_after_the_last(monkeypatch: pytest.MonkeyPatch) -> None:
    """LBDD §3.5.2, docs/design.md#invariants "at most 33": after a path n_0 .. n_32 along strictly
    increasing buckets, no node n_33 can follow. The conclusion must be about the edge from n_32
    to the extra node n_33, not about nodes already on the path (which holds trivially)."""
    st = statement(lemmas.path_depth_bound, monkeypatch)
    (conclusion,) = st.conclusions.values()
    text = str(conclusion)
    last, extra = f"digest_{lemmas.W}", f"digest_{lemmas.W + 1}"
    assert extra in text and last in text
    assert f"digest_{lemmas.W - 1}" not in text


def test_slice_witness_is_the_slice_of_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cover lemma's witness j* = ceil((t+1) k / m) - 1 is an integer slice index: the one
    whose slice [floor(j m/k), floor((j+1) m/k)) holds rank t in the reference (Algorithm 2,
    D-L2), so the lemma names the father of rank t, not some real number."""
    st = statement(lemmas.lbdd_slices_cover, monkeypatch)
    for k in range(1, 6):
        for m in range(1, 8):
            for t in range(m):
                (father,) = [
                    j for j in range(k) if slice_bounds(j, k, m)[0] <= t < slice_bounds(j, k, m)[1]
                ]
                assert evaluate(st.show["j*"], {"k": k, "m": m, "t": t}) == father


@pytest.mark.parametrize("sort", ["reals", "integers"])
def test_cutoff_witness_is_the_segment_of_the_reference(
    sort: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The existence lemma's witness i* = min(floor((v - l)/h), n - 1) is the index of the
    reference segment that holds v (thesis §3.5, D-SEG), an integer, for every v of [l, u]."""
    (lemma,) = [f for f in lemmas.LEMMAS if f.__name__ == f"cutoff_exists_{sort}"]
    st = statement(lemma, monkeypatch)
    segs = segments(0, 10, 4, 3)  # [0,3) [3,6) [6,9) [9,10]
    for v in range(11):
        (seg,) = [g for g in segs if g.contains(v)]
        env = {"l": 0, "u": 10, "h": 3, "n": len(segs), "v": v}
        assert evaluate(st.show["i*"], env) == seg.index
