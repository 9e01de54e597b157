"""Kyra's clique (HAC, §III.A, Fig. 5) and routing-tree (MST) properties as rows of
`pubsub-spec check`: the postconditions of properties/kyra/checks.py on seeded random server
placements, and each mutant of properties/kyra/mutants.py rejected by them (the same checks
run under Hypothesis in tests/test_kyra_properties.py)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from functools import partial

from pubsub_spec.properties.kyra.checks import check_cliques, check_tree
from pubsub_spec.properties.kyra.mutants import (
    cyclic_tree,
    early_exit_hac,
    no_size_check_hac,
    single_linkage_hac,
    star_tree,
)
from pubsub_spec.properties.verdict import CheckResult, Found, timed_row
from pubsub_spec.reference.kyra.hac import cluster_server_cliques
from pubsub_spec.reference.kyra.trees import minimum_spanning_tree

LABEL = "Kyra: cliques (HAC) and routing trees (MST)"
Distance = Callable[[str, str], float]
Hac = Callable[[Sequence[str], Distance, float, int], list[tuple[str, ...]]]
Tree = Callable[[Sequence[str], Distance], list[tuple[str, str]]]


def _placement(rng: random.Random, n: int) -> tuple[list[str], Distance]:
    names = [f"s{i}" for i in range(n)]
    at = {s: (float(rng.randint(0, 20)), float(rng.randint(0, 20))) for s in names}

    def d(a: str, b: str) -> float:
        (x1, y1), (x2, y2) = at[a], at[b]
        return round(math.hypot(x1 - x2, y1 - y2), 6)

    return names, d


def _cases(examples: int) -> list[tuple[list[str], Distance, float, int]]:
    rng = random.Random("kyra-rows")
    out = []
    for _ in range(examples):
        names, d = _placement(rng, rng.randint(1, 9))
        out.append((names, d, float(rng.randint(1, 15)), rng.randint(1, 5)))
    return out


def _hac_failure(hac: Hac, cases: list[tuple[list[str], Distance, float, int]]) -> str | None:
    for names, d, max_d, max_n in cases:
        bad = check_cliques(names, hac(names, d, max_d, max_n), d, max_d, max_n)
        if bad:
            return bad[0]
    return None


def _tree_failure(tree: Tree, cases: list[tuple[list[str], Distance, float, int]]) -> str | None:
    for names, d, _, _ in cases:
        members = names[:6]
        bad = check_tree(members, tree(members, d), d)
        if bad:
            return bad[0]
    return None


# A mutant row's verdict must not depend on `check --examples`: mutants always get at least this
# many cases (the same deterministic prefix; the mutant without a size check needs about 20).
MUTANT_MIN_EXAMPLES = 200


def rows(examples: int = 200) -> list[CheckResult]:
    cases = _cases(examples)
    mcases = cases if examples >= MUTANT_MIN_EXAMPLES else _cases(MUTANT_MIN_EXAMPLES)
    plan: list[tuple[str, Callable[[], str | None], bool]] = [
        ("HAC postconditions", lambda: _hac_failure(cluster_server_cliques, cases), False),
        ("mutant single-linkage HAC", lambda: _hac_failure(single_linkage_hac, mcases), True),
        ("mutant HAC without size check", lambda: _hac_failure(no_size_check_hac, mcases), True),
        ("mutant HAC stopping early", lambda: _hac_failure(early_exit_hac, mcases), True),
        ("MST is minimal", lambda: _tree_failure(minimum_spanning_tree, cases), False),
        ("mutant star tree", lambda: _tree_failure(star_tree, mcases), True),
        ("mutant cyclic tree", lambda: _tree_failure(cyclic_tree, mcases), True),
    ]
    return [
        timed_row(
            LABEL,
            "Hypothesis",
            name,
            "examples",
            partial(_counted, len(mcases if broken else cases), run),
            broken,
        )
        for name, run, broken in plan
    ]


def _counted(n: int, run: Callable[[], str | None]) -> Found:
    return n, run()
