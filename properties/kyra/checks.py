"""Postcondition checkers for Kyra's server cliques (§III.A, Fig. 5) and routing trees
(§III.A MSTs), used by the Hypothesis properties (tests/test_kyra_properties.py). Each returns
the list of violations (empty when the invariant holds), so a mutant's rejection is visible."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from pubsub_spec.reference.kyra.hac import can_merge, diameter

Distance = Callable[[str, str], float]


def check_cliques(
    servers: Sequence[str],
    cliques: Sequence[Sequence[str]],
    distance: Distance,
    max_distance: float,
    max_num: int,
) -> list[str]:
    """Fig. 5 (docs/kyra.md, "Invariants and mutants"): the cliques partition the servers; each
    has at most maxNumServers servers and diameter at most maxDistance (§III.A "satisfy both
    conditions"); and at exit no two cliques could still merge (maximality, with erratum
    K-E2)."""
    out: list[str] = []
    flat = [s for c in cliques for s in c]
    if sorted(flat) != sorted(servers) or len(set(flat)) != len(flat):
        out.append("not a partition of the servers")
    for c in cliques:
        if len(c) > max_num:
            out.append(f"clique {list(c)} has {len(c)} > {max_num} servers")
        if diameter(c, distance) > max_distance:
            out.append(f"clique {list(c)} has diameter > {max_distance}")
    for c1, c2 in itertools.combinations(cliques, 2):
        if can_merge(c1, c2, distance, max_distance, max_num):
            out.append(f"cliques {list(c1)} and {list(c2)} could still merge")
    return out


def _connected(members: Sequence[str], edges: Sequence[tuple[str, str]]) -> bool:
    if not members:
        return True
    adj: dict[str, set[str]] = {m: set() for m in members}
    for a, b in edges:
        adj[a].add(b)
        adj[b].add(a)
    seen, stack = {members[0]}, [members[0]]
    while stack:
        for n in adj[stack.pop()]:
            if n not in seen:
                seen.add(n)
                stack.append(n)
    return len(seen) == len(members)


def brute_force_mst_weight(members: Sequence[str], weight: Distance) -> float:
    """The minimum spanning-tree weight by enumerating edge subsets (small inputs only)."""
    names = sorted(members)
    pairs = list(itertools.combinations(names, 2))
    best = float("inf")
    for edges in itertools.combinations(pairs, max(0, len(names) - 1)):
        if _connected(names, list(edges)):
            best = min(best, sum(weight(a, b) for a, b in edges))
    return best if names else 0.0


def check_tree(
    members: Sequence[str], edges: Sequence[tuple[str, str]], weight: Distance
) -> list[str]:
    """§III (docs/kyra.md, "Invariants and mutants"): spanning and acyclic over exactly its
    members, |E| = |V| - 1, of minimum weight (against brute force)."""
    out: list[str] = []
    names = sorted(set(members))
    ends = {x for e in edges for x in e}
    if not ends <= set(names):
        out.append("an edge leaves the member set")
    if len(edges) != max(0, len(names) - 1):
        out.append(f"{len(edges)} edges for {len(names)} members")
    if not _connected(names, edges):
        out.append("not spanning")
    total = sum(weight(a, b) for a, b in edges)
    if len(names) <= 6 and total > brute_force_mst_weight(names, weight) + 1e-9:
        out.append(f"weight {total} is not minimum")
    return out
