"""The Structured Cyclic Overlay Topology (OctopiA §III-IV): G_S = G_A □ G_C, the Cartesian
product of an acyclic factor G_A (a tree) and a complete connectivity factor G_C = K_m.

A broker is B(x, i) with x in V(G_A) and i in V(G_C) = {0..m-1} (Index and Label Order
properties, §III-B). Cluster C_i = G_A □ {i} (CI = i), region R_x = {x} □ G_C (RI = x) (§IV).
aLinks join brokers of one cluster, iLinks brokers of one region (§IV-A). The graph-theoretic
formulas (Eqs. 1-4, lost in our copy of the paper) are rebuilt from [14] ([R] in
docs/octopia.md); brute-force connectivity lets the tests check them on small graphs.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations, pairwise
from typing import TypeVar

Broker = tuple[str, int]
N = TypeVar("N", bound=Hashable)
Graph = Mapping[N, frozenset[N]]


def broker_name(b: Broker) -> str:
    """The paper's label B(x,i) (§III-B, Label Order property)."""
    return f"B({b[0]},{b[1]})"


@dataclass(frozen=True)
class AcyclicFactor:
    """G_A: a tree on named vertices (Acyclic property, §III-B; decision A-TREE: connected, so
    that G_S is connected, §III-A)."""

    vertices: tuple[str, ...]
    edges: tuple[tuple[str, str], ...]
    adjacency: Mapping[str, frozenset[str]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        adj: dict[str, set[str]] = {v: set() for v in self.vertices}
        for a, b in self.edges:
            adj[a].add(b)
            adj[b].add(a)
        object.__setattr__(self, "adjacency", {v: frozenset(n) for v, n in adj.items()})

    @staticmethod
    def from_edges(edges: Iterable[tuple[str, str]], vertices: Iterable[str] = ()) -> AcyclicFactor:
        es = tuple(edges)
        vs: list[str] = list(vertices)
        for a, b in es:
            for v in (a, b):
                if v not in vs:
                    vs.append(v)
        return AcyclicFactor(tuple(vs), es)

    def problem(self) -> str | None:
        """Why this is not a tree (None if it is)."""
        if not self.vertices:
            return "no vertex"
        if len(set(self.vertices)) != len(self.vertices):
            return "duplicate vertex"
        seen_edges: set[frozenset[str]] = set()
        for a, b in self.edges:
            if a == b or a not in self.adjacency or b not in self.adjacency:
                return f"bad edge {a}-{b}"
            if frozenset((a, b)) in seen_edges:
                return f"duplicate edge {a}-{b}"
            seen_edges.add(frozenset((a, b)))
        if len(self.edges) != len(self.vertices) - 1 or not is_connected(self.adjacency):
            return "not a tree (acyclic and connected)"
        return None

    def diameter(self) -> int:
        return diameter(self.adjacency)


def path_factor(n: int) -> AcyclicFactor:
    """A path a-b-c-... (Fig. 7 uses the path of three nodes)."""
    names = [chr(ord("a") + k) for k in range(n)]
    return AcyclicFactor(tuple(names), tuple(pairwise(names)))


def fig10_factor() -> AcyclicFactor:
    """Fig. 10's G_A: 14 brokers, inner F, G, H, I and 10 edge brokers. The shape is lost;
    decision A12: the caterpillar F-G-H-I with 3, 2, 2, 3 leaves (diam 5)."""
    spine = [("F", "G"), ("G", "H"), ("H", "I")]
    leaves = {"F": "abc", "G": "de", "H": "fg", "I": "hij"}
    edges = spine + [(p, leaf) for p, ls in leaves.items() for leaf in ls]
    return AcyclicFactor.from_edges(edges)


class Scot:
    """G_S = G_A □ K_m with its clusters, regions and links (§III-B, §IV)."""

    def __init__(self, factor: AcyclicFactor, m: int) -> None:
        problem = factor.problem()
        if problem is not None:
            raise ValueError(f"acyclic factor: {problem}")
        if m < 1:
            raise ValueError("the connectivity factor needs m >= 1 clusters")
        self.factor = factor
        self.m = m
        # Eq. 1 [R]: V(G_S) = V(G_A) x V(G_C), labels in Label Order (x, i).
        self.brokers: tuple[Broker, ...] = tuple((x, i) for i in range(m) for x in factor.vertices)
        self.adjacency: dict[Broker, frozenset[Broker]] = {
            b: frozenset([*self.primary_neighbours(b), *self.secondary_neighbours(b).values()])
            for b in self.brokers
        }

    # -- fibres (§III-B, §IV) ---------------------------------------------------------------
    def cluster(self, i: int) -> tuple[Broker, ...]:
        """C_i = G_A □ {i} (CI = i)."""
        return tuple((x, i) for x in self.factor.vertices)

    def region(self, x: str) -> tuple[Broker, ...]:
        """R_x = {x} □ G_C (RI = x)."""
        return tuple((x, i) for i in range(self.m))

    # -- neighbours (§IV-B) ----------------------------------------------------------------
    def primary_neighbours(self, b: Broker) -> tuple[Broker, ...]:
        """Direct neighbours in the same cluster, over aLinks (Eq. 2, second disjunct)."""
        x, i = b
        return tuple(sorted((y, i) for y in self.factor.adjacency[x]))

    def secondary_neighbours(self, b: Broker) -> dict[int, Broker]:
        """Neighbours in the same region over iLinks, one per other cluster (§IV-B), by CI."""
        x, i = b
        return {j: (x, j) for j in range(self.m) if j != i}

    def neighbours(self, b: Broker) -> frozenset[Broker]:
        return self.adjacency[b]

    def is_alink(self, a: Broker, b: Broker) -> bool:
        return a[1] == b[1] and b[0] in self.factor.adjacency[a[0]]

    def is_ilink(self, a: Broker, b: Broker) -> bool:
        return a[0] == b[0] and a[1] != b[1]

    def is_edge_broker(self, b: Broker) -> bool:
        """Edge broker: at most one primary neighbour (§IV-B)."""
        return len(self.primary_neighbours(b)) <= 1

    def is_inner_broker(self, b: Broker) -> bool:
        """Inner broker: at least two primary neighbours (§IV-B)."""
        return len(self.primary_neighbours(b)) >= 2

    # -- links (§IV-A) ---------------------------------------------------------------------
    def alinks(self) -> frozenset[frozenset[Broker]]:
        """E(C_i) = {B(x,i)B(y,i) : xy in E_A}, over all clusters."""
        return frozenset(
            frozenset(((a, i), (b, i))) for i in range(self.m) for a, b in self.factor.edges
        )

    def ilinks(self) -> frozenset[frozenset[Broker]]:
        """E(R_x) = {B(x,i)B(x,j) : i != j}, over all regions."""
        return frozenset(
            frozenset(((x, i), (x, j)))
            for x in self.factor.vertices
            for i, j in combinations(range(self.m), 2)
        )

    def links(self) -> frozenset[frozenset[Broker]]:
        return self.alinks() | self.ilinks()


# -- formulas (Eqs. 1-4 [R], §IV-A, §IV-B) -------------------------------------------------
def order_formula(n_a: int, m: int) -> int:
    """|V(G_S)| = |V_A| · m (Eq. 1 [R])."""
    return n_a * m


def alink_count_formula(e_a: int, m: int) -> int:
    """m · |E_A| aLinks (§IV-A [R])."""
    return m * e_a


def ilink_count_formula(n_a: int, m: int) -> int:
    """|V_A| · m(m-1)/2 iLinks (§IV-A [R])."""
    return n_a * m * (m - 1) // 2


def degree_formula(deg_a: int, m: int) -> int:
    """deg B(x,i) = deg_A(x) + (m - 1): δ is additive under □ (§III-A, [14])."""
    return deg_a + m - 1


def product_connectivity(k_g: int, n_g: int, d_g: int, k_h: int, n_h: int, d_h: int) -> int:
    """κ(G□H) = min{κ(G)|V(H)|, κ(H)|V(G)|, δ(G)+δ(H)} (Eq. 3 [R]); the same form with λ is
    Eq. 4 [R] (Špacapan; [14] Thm. 5.2)."""
    return min(k_g * n_h, k_h * n_g, d_g + d_h)


def complete_graph(m: int) -> dict[int, frozenset[int]]:
    return {i: frozenset(j for j in range(m) if j != i) for i in range(m)}


# -- brute-force graph measures (for the tests of the formulas) ----------------------------
def is_connected(g: Graph[N]) -> bool:
    nodes = list(g)
    if not nodes:
        return True
    seen = {nodes[0]}
    todo = deque([nodes[0]])
    while todo:
        for w in g[todo.popleft()]:
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return len(seen) == len(nodes)


def distances(g: Graph[N], src: N) -> dict[N, int]:
    dist = {src: 0}
    todo = deque([src])
    while todo:
        v = todo.popleft()
        for w in g[v]:
            if w not in dist:
                dist[w] = dist[v] + 1
                todo.append(w)
    return dist


def diameter(g: Graph[N]) -> int:
    return max((max(distances(g, v).values()) for v in g), default=0)


def min_degree(g: Graph[N]) -> int:
    return min(len(n) for n in g.values())


def _max_flow(cap: dict[tuple[object, object], int], s: object, t: object) -> int:
    """Unit-capacity max flow by BFS augmenting paths (Edmonds-Karp)."""
    adj: dict[object, set[object]] = {}
    for a, b in list(cap):
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
        cap.setdefault((b, a), 0)
    flow = 0
    while True:
        parent: dict[object, object] = {s: s}
        todo = deque([s])
        while todo and t not in parent:
            v = todo.popleft()
            for w in adj.get(v, ()):
                if w not in parent and cap[(v, w)] > 0:
                    parent[w] = v
                    todo.append(w)
        if t not in parent:
            return flow
        v = t
        while v != s:
            u = parent[v]
            cap[(u, v)] -= 1
            cap[(v, u)] += 1
            v = u
        flow += 1


def edge_connectivity(g: Graph[N]) -> int:
    """λ(G): the fewest edges whose removal disconnects G (Menger, by max flow)."""
    nodes = list(g)
    if len(nodes) < 2:
        return 0
    best = len(nodes)
    for t in nodes[1:]:
        cap: dict[tuple[object, object], int] = {}
        for v in g:
            for w in g[v]:
                cap[(v, w)] = 1
        best = min(best, _max_flow(cap, nodes[0], t))
    return best


def vertex_connectivity(g: Graph[N]) -> int:
    """κ(G): the fewest vertices whose removal disconnects G or leaves one vertex (n-1 for a
    complete graph), by vertex-split max flow over non-adjacent pairs."""
    nodes = list(g)
    n = len(nodes)
    best = n - 1
    for a, b in combinations(nodes, 2):
        if b in g[a]:
            continue
        cap: dict[tuple[object, object], int] = {}
        for v in nodes:
            cap[(("in", v), ("out", v))] = n if v in (a, b) else 1
            for w in g[v]:
                cap[(("out", v), ("in", w))] = n
        best = min(best, _max_flow(cap, ("out", a), ("in", b)))
    return best
