"""Minimum spanning trees (Kyra §III.A: "routing trees are built as minimum spanning trees
across all servers whose content zones overlap with that of the tree"; Siena's acyclic server
topology, decision K-D9; the multicast groups' trees, K-D10).

Kruskal's algorithm with edge weights the one-way latency and ties broken by (weight, name pair)
(decision K-D7), so a tree is a deterministic function of its members and the latency model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

Edge = tuple[str, str]


def minimum_spanning_tree(
    members: Sequence[str], weight: Callable[[str, str], float]
) -> list[Edge]:
    """The MST edges (a, b) with a < b, sorted; a single member gives no edge."""
    names = sorted(set(members))
    parent = {n: n for n in names}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    candidates = sorted(
        ((weight(a, b), a, b) for i, a in enumerate(names) for b in names[i + 1 :]),
    )
    edges: list[Edge] = []
    for _, a, b in candidates:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
            edges.append((a, b))
            if len(edges) == len(names) - 1:
                break
    return sorted(edges)


def adjacency(members: Sequence[str], edges: Sequence[Edge]) -> dict[str, list[str]]:
    adj: dict[str, list[str]] = {m: [] for m in sorted(members)}
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    for v in adj.values():
        v.sort()
    return adj


def tree_weight(edges: Sequence[Edge], weight: Callable[[str, str], float]) -> float:
    return sum(weight(a, b) for a, b in edges)
