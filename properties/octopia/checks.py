"""The checks OctopiA's tests run (I1-I7, docs/octopia.md "Invariants and mutants"), each a
function returning the violations found (empty = pass), so that a mutant is shown rejected by
the same function."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from itertools import combinations
from typing import Any

from pubsub_spec.reference.common.model import Subscription
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.octopia.advertisements import overlaps
from pubsub_spec.reference.octopia.civ import has
from pubsub_spec.reference.octopia.scot import (
    Broker,
    Scot,
    alink_count_formula,
    complete_graph,
    degree_formula,
    edge_connectivity,
    ilink_count_formula,
    is_connected,
    min_degree,
    order_formula,
    product_connectivity,
    vertex_connectivity,
)
from pubsub_spec.reference.octopia.system import OctopiaSystem
from pubsub_spec.reference.sim.run import run_and_compare
from pubsub_spec.reference.sim.system import System


def scot_violations(
    scot: Scot,
    adjacency: Mapping[Broker, frozenset[Broker]] | None = None,
    connectivity: bool = True,
) -> list[str]:
    """I7 on the product graph `adjacency` (default: the SCOT's own): order and link counts,
    one secondary neighbour per other cluster, degrees, fibre intersection, Eqs. 3-4."""
    g = scot.adjacency if adjacency is None else adjacency
    fa, m = scot.factor, scot.m
    out: list[str] = []
    n_a, e_a = len(fa.vertices), len(fa.edges)
    if len(g) != order_formula(n_a, m):
        out.append(f"order {len(g)} != {order_formula(n_a, m)}")
    links = {frozenset((a, b)) for a in g for b in g[a]}
    want = alink_count_formula(e_a, m) + ilink_count_formula(n_a, m)
    if len(links) != want:
        out.append(f"links {len(links)} != {want}")
    for b in g:
        x, i = b
        others = [nb for nb in g[b] if nb[1] != i]
        per = sorted(nb[1] for nb in others)
        if per != [j for j in range(m) if j != i] or any(nb[0] != x for nb in others):
            out.append(f"{b}: secondary neighbours {sorted(others)}")
        if len(g[b]) != degree_formula(len(fa.adjacency[x]), m):
            out.append(f"{b}: degree {len(g[b])}")
    for i in range(m):
        for x in fa.vertices:
            if len(set(scot.cluster(i)) & set(scot.region(x))) != 1:
                out.append(f"|C_{i} ∩ R_{x}| != 1")
    if not is_connected(g):
        out.append("not connected")
    k_m = complete_graph(m)
    k_a = vertex_connectivity(fa.adjacency)
    l_a = edge_connectivity(fa.adjacency)
    d_a = min_degree(fa.adjacency)
    d_c = m - 1
    if (
        connectivity and n_a >= 2 and m >= 2
    ):  # Eqs. 3-4 hold for non-trivial factors ([14]; K1 has κ = 0)
        kappa = product_connectivity(k_a, n_a, d_a, vertex_connectivity(k_m), m, d_c)
        lam = product_connectivity(l_a, n_a, d_a, edge_connectivity(k_m), m, d_c)
        if vertex_connectivity(g) != kappa:
            out.append(f"κ {vertex_connectivity(g)} != Eq. 3 {kappa}")
        if edge_connectivity(g) != lam:
            out.append(f"λ {edge_connectivity(g)} != Eq. 4 {lam}")
    return out


def strong_product_mutant(scot: Scot) -> dict[Broker, frozenset[Broker]]:
    """The Strong product G_A ⊠ K_m (§III-A rejects it): extra diagonal links."""
    g = {b: set(nb) for b, nb in scot.adjacency.items()}
    for x, i in scot.brokers:
        for y in scot.factor.adjacency[x]:
            for j in range(scot.m):
                if j != i:
                    g[(x, i)].add((y, j))
    return {b: frozenset(nb) for b, nb in g.items()}


def delivery_violations(
    trace: Trace, make: Callable[[Trace], System[Any]]
) -> tuple[list[str], System[Any]]:
    """I1 and I3: exactly the oracle's deliveries, and each broker receives each notification
    at most once."""
    result, cmp = run_and_compare(trace, make)
    out: list[str] = []
    if not cmp.agree:
        out.append(cmp.summary())
    m = getattr(result.system.metrics, "max_receptions", 1)
    if m > 1:
        out.append(f"a broker received a notification {m} times")
    if cmp.expected == 0:
        out.append("vacuous: no delivery expected")
    return out, result.system


def civ_violations(system: OctopiaSystem, subs: Iterable[Subscription]) -> list[str]:
    """I4 at quiescence, with no unsubscribes: CIB j of a host entry is set iff some C_j
    subscription overlaps the advertisement (j != host); the SCB of every secondary entry
    agrees with the host's bit."""
    out: list[str] = []
    subs = list(subs)
    scot = system.scot
    for b in scot.brokers:
        for aid, e in system.srt[b].items():
            if e.last_hop is not None:
                host = system.srt[e.last_hop].get(aid)
                if host is not None and e.scb != has(host.stc_mask, b[1]):
                    out.append(f"SCB of {aid} at {b} disagrees with the host")
                continue
            for j in range(scot.m):
                if j == b[1]:
                    continue
                want = any(
                    overlaps(e.adv, s) and system.host_of(s.subscriber)[1] == j for s in subs
                )
                if has(e.stc_mask, j) != want:
                    out.append(f"CIB {j} of {aid} at {b} is {has(e.stc_mask, j)}, want {want}")
    return out


def subgrouping_violations(system: OctopiaSystem, subs: Iterable[Subscription]) -> list[str]:
    """I5: each subscription sits in the PRTs of exactly its cluster's brokers, with a local or
    aLink lastHop (none stored at the host of a CIB_SET)."""
    out: list[str] = []
    scot = system.scot
    for s in subs:
        ci = system.host_of(s.subscriber)[1]
        where = {b for b in scot.brokers if s.id in system.prt[b]}
        if where != set(scot.cluster(ci)):
            out.append(f"{s.id} stored at {sorted(where)}, want cluster {ci}")
        for b in where:
            hop = system.prt[b][s.id].last_hop
            if hop is not None and not scot.is_alink(b, hop):
                out.append(f"{s.id} at {b}: lastHop {hop} is not an aLink")
    return out


def partition_violations(
    groups: Iterable[Iterable[Subscription]], subs: Iterable[str]
) -> list[str]:
    """Subgrouping loses no subscription and duplicates none."""
    seen = [s.id for g in groups for s in g]
    want = sorted(subs)
    out = []
    if sorted(seen) != want:
        out.append(f"subgroups hold {sorted(seen)}, want {want}")
    for a, b in combinations(seen, 2):
        if a == b:
            out.append(f"{a} in two subgroups")
    return out
