"""Server cliques by complete-linkage Hierarchical Agglomerative Clustering (Kyra §III.A,
Fig. 5 `Cluster_servercliques(maxDistance, maxNumServers)`).

The distance between two cliques is the furthest distance between any pair of their servers
(§III.A: complete linkage). Pairs are taken by increasing distance, ties broken by the cliques'
smallest member names (decision K-D7). Erratum K-E2: Fig. 5's inner `foreach` can end without a
`break` or `return` (some pair is within maxDistance but every such pair breaks the size limit)
and the `while` then loops forever; here a pass that merges nothing returns the cliques.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

Distance = Callable[[str, str], float]


def cluster_server_cliques(
    servers: Sequence[str],
    distance: Distance,
    max_distance: float,
    max_num_servers: int,
    linkage: Callable[[float, float], float] = max,
) -> list[tuple[str, ...]]:
    """Fig. 5. Returns the cliques, each sorted, in order of their first member.

    `linkage` is the rule that updates the proximity matrix after a merge: `max` is the
    paper's complete linkage (§III.A "furthest distance"); other rules exist for mutants only.
    """
    # Fig. 5: foreach i: clique c_i <- server s_i; proximitymatrix[i,j] = distance(s_i, s_j)
    members: dict[str, list[str]] = {s: [s] for s in sorted(servers)}
    prox: dict[tuple[str, str], float] = {}
    names = sorted(servers)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            d = distance(a, b)
            # a pair beyond maxDistance never merges (complete linkage only grows)
            if d <= max_distance or linkage is not max:
                prox[(a, b)] = d
    # Fig. 5: while (number_of_cliques > 1)
    while len(members) > 1:
        merged = False
        # foreach (c_i, c_j) with increasing proximitymatrix[i,j] (ties: names, K-D7)
        for (a, b), d in sorted(prox.items(), key=lambda kv: (kv[1], kv[0])):
            if d > max_distance:
                return _result(members)  # Fig. 5: return cliques
            if len(members[a]) + len(members[b]) <= max_num_servers:
                _merge(members, prox, a, b, linkage)  # merge(c_i, c_j); update_proximitymatrix
                merged = True
                break
        if not merged:
            return _result(members)  # erratum K-E2: nothing can merge any more
    return _result(members)


def _merge(
    members: dict[str, list[str]],
    prox: dict[tuple[str, str], float],
    a: str,
    b: str,
    linkage: Callable[[float, float], float],
) -> None:
    """Merge clique b into clique a (a < b keeps the smaller name as the clique's key)."""
    members[a] = sorted(members[a] + members.pop(b))
    old = dict(prox)
    for k in [k for k in prox if a in k or b in k]:
        del prox[k]
    for c in members:
        if c == a:
            continue
        da = old.get((min(a, c), max(a, c)))
        db = old.get((min(b, c), max(b, c)))
        if da is None or db is None:
            if linkage is max:
                continue  # one side beyond maxDistance: so is the merged clique
            d = da if db is None else db
            if d is None:
                continue
        else:
            d = linkage(da, db)
        prox[(min(a, c), max(a, c))] = d


def _result(members: dict[str, list[str]]) -> list[tuple[str, ...]]:
    return sorted(tuple(m) for m in members.values())


def diameter(clique: Sequence[str], distance: Distance) -> float:
    """The furthest distance between two servers of a clique (0 for one server)."""
    return max((distance(a, b) for i, a in enumerate(clique) for b in clique[i + 1 :]), default=0.0)


def can_merge(
    c1: Sequence[str], c2: Sequence[str], distance: Distance, max_distance: float, max_num: int
) -> bool:
    """Whether two cliques could still merge under both limits (maximality at exit)."""
    if len(c1) + len(c2) > max_num:
        return False
    return all(distance(a, b) <= max_distance for a in c1 for b in c2)
