"""Deliberately broken variants that the Kyra checks must reject (house rule: every invariant
has a mutant)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from pubsub_spec.reference.common.model import Subscription
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.kyra.filters import Filter, RoutingTable
from pubsub_spec.reference.kyra.hac import Distance, cluster_server_cliques
from pubsub_spec.reference.kyra.messages import SubMove
from pubsub_spec.reference.kyra.siena import SienaSystem
from pubsub_spec.reference.kyra.system import KyraSystem


def single_linkage_hac(
    servers: Sequence[str], distance: Distance, max_d: float, max_n: int
) -> list[tuple[str, ...]]:
    """HAC with single linkage (nearest pair): chains exceed maxDistance."""
    return cluster_server_cliques(servers, distance, max_d, max_n, linkage=min)


def no_size_check_hac(
    servers: Sequence[str], distance: Distance, max_d: float, max_n: int
) -> list[tuple[str, ...]]:
    """Fig. 5 without the `size(c_i) + size(c_j) <= maxNumServers` test."""
    return cluster_server_cliques(servers, distance, max_d, len(servers) + 1)


def early_exit_hac(
    servers: Sequence[str], distance: Distance, max_d: float, max_n: int
) -> list[tuple[str, ...]]:
    """Stops after the first merge: not maximal."""
    return cluster_server_cliques(servers, distance, max_d, min(max_n, 2))


def star_tree(members: Sequence[str], weight: Callable[[str, str], float]) -> list[tuple[str, str]]:
    """A spanning tree that is not minimum: every member hangs off the first."""
    names = sorted(members)
    return [(names[0], b) for b in names[1:]]


def cyclic_tree(
    members: Sequence[str], weight: Callable[[str, str], float]
) -> list[tuple[str, str]]:
    """A ring: one edge too many (events would loop or be duplicated)."""
    names = sorted(members)
    if len(names) < 3:
        return [(names[0], b) for b in names[1:]]
    return [(names[i], names[(i + 1) % len(names)]) for i in range(len(names))]


class DropCoveringTable(RoutingTable):
    """A routing table that keeps the first filter of a direction and drops any later one
    that covers it (backwards covering): events only the wider filter admits are lost."""

    def add(self, neighbour: str, f: Filter) -> None:
        here = self.entries[neighbour]
        lo, hi = f.extent[0]
        for g in here.values():
            if g.sub.schema == f.sub.schema and lo <= g.extent[0][0] and g.extent[0][1] <= hi:
                return
        here[f.ident] = f


class DropCoveringSiena(SienaSystem):
    def __init__(self, trace: Trace) -> None:
        super().__init__(trace)
        self.tables = {s: DropCoveringTable() for s in self.servers}


class EarlyInstallKyra(KyraSystem):
    """Against K-D12 (the TLA+ mutant MCKyraRouting_EarlyInstall): a subscribe completes once
    its SubMoves have reached the proxies, while its SubPropagates are still on the trees; a
    publication that follows at once is routed by tables that lack the entry and is missed."""

    def __init__(self, trace: Trace) -> None:
        super().__init__(trace)
        self.moves: Counter[str] = Counter()

    def subscribe(self, sub: Subscription, seq: int) -> None:
        super().subscribe(sub, seq)
        self.moves[sub.id] = len(self.proxies_for(sub))

    def _on_sub_move(self, z: str, msg: SubMove) -> None:
        if not msg.remove:
            self.moves[msg.sub.id] -= 1
        super()._on_sub_move(z, msg)

    def installed(self, sub_id: str) -> bool:
        return sub_id in self.subs and self.moves[sub_id] == 0
