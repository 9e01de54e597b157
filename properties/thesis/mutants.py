"""Deliberately broken variants of the reference, one per protocol rule an invariant rests on.
Each must be rejected by the checks (tests/test_mutants_reference.py); a check that accepts a
mutant has no teeth."""

from __future__ import annotations

from dataclasses import replace

from pubsub_spec.reference.common.model import Subscription
from pubsub_spec.reference.thesis.cutoff import Segment
from pubsub_spec.reference.thesis.messages import LeafUpdate, ProbePub, ProbeSub, TransferSub
from pubsub_spec.reference.thesis.system import Peer, TwoDTreeSystem
from pubsub_spec.reference.thesis.tree import StoredPoint, TreeNode


class ThesisAsWrittenSplit(TwoDTreeSystem):
    """Program 3.1 as written: LeafNodeUpdateMessage right after the TransferSubs, no waiting
    for the children (erratum E4): a probe can reach a child before it exists, jump back to an
    ancestor that has already seen the event, and be discarded — a missed match."""

    def _split(self, peer: Peer, node: TreeNode) -> None:
        super()._split(peer, node)
        node.splitting = 0
        if node.bits:
            up = node.bits[:-1]
            self.send_key(peer, self._key(node.qattr, up), LeafUpdate(node.qattr, node.bits, up))

    def _on_transfer_sub(self, peer: Peer, msg: TransferSub) -> None:
        if msg.created:
            return
        child = TreeNode(msg.qattr, msg.target, {p.key: p for p in msg.points}, seen=set(msg.seen))
        self._host(peer, child)
        self._check_capacity(peer, child)


class NoSeenInheritance(TwoDTreeSystem):
    """Children start with an empty dedup set: a leaf that matched an event and then split
    lets a late probe match the same subscriptions again at a child — a duplicate."""

    def _on_transfer_sub(self, peer: Peer, msg: TransferSub) -> None:
        super()._on_transfer_sub(peer, replace(msg, seen=frozenset()))


class NoDedup(TwoDTreeSystem):
    """No per-event probe dedup (thesis §3.4.1): jump-backs re-probe subtrees — duplicates."""

    def _on_probe_pub(self, peer: Peer, msg: ProbePub) -> None:
        node = self._node(peer, msg.qattr, msg.target)
        if node is not None:
            node.seen.discard(msg.event.id)
        super()._on_probe_pub(peer, msg)


class NoJumpBack(TwoDTreeSystem):
    """A probe for a node that does not exist is dropped instead of jumping back to level l/2
    (Program 3.3, line 53): the probed region is lost — missed matches."""

    def _on_probe_pub(self, peer: Peer, msg: ProbePub) -> None:
        if self._node(peer, msg.qattr, msg.target) is None:
            return
        super()._on_probe_pub(peer, msg)


class ClosedSegments(TwoDTreeSystem):
    """Remapped segments read literally as closed intervals (thesis §3.5, erratum E3): an event
    on a segment boundary matches two points — a duplicate delivery."""

    def _stored_points(self, sub: Subscription, seq: int) -> tuple[StoredPoint, ...]:
        points = super()._stored_points(sub, seq)
        return tuple(
            replace(p, segment=Segment(p.segment.index, p.segment.lo, p.segment.hi, True))
            for p in points
        )


class NoDepthCap(TwoDTreeSystem):
    """Leaves split past max_depth (as long as the grid allows): the depth bound is broken."""

    def _check_capacity(self, peer: Peer, node: TreeNode) -> None:
        if len(node.points) <= peer.capacity or not node.points:
            return
        path_len = len(next(iter(node.points.values())).path)
        if node.depth >= path_len:
            return
        self._split(peer, node)


class MergeBelowCapacity(TwoDTreeSystem):
    """Leaves merged back into their parent when the siblings' load falls below capacity,
    which the thesis rules out (§3.2.2: the tree only grows). The merged parent forgets that it
    was split, but stale LeafNodeRoutingTable records and guessed probes still name the removed
    children: probes that reach them find nothing — missed matches."""

    def _on_probe_sub(self, peer: Peer, msg: ProbeSub) -> None:
        super()._on_probe_sub(peer, msg)
        if msg.remove and not msg.found:
            self._merge_all()

    def _merge_all(self) -> None:
        for node in sorted(self.tree_nodes(), key=lambda n: -n.depth):
            if node.lnrt is None or node.splitting:
                continue
            kids = [self._find_node(node.qattr, node.bits + b) for b in "01"]
            if any(k is None or k.lnrt is not None or k.splitting for k in kids):
                continue
            load = sum(len(k.points) for k in kids if k is not None)
            if (
                load
                < self.peers[self.ready_ring.closest(self._key(node.qattr, node.bits))].capacity
            ):
                for k in kids:
                    assert k is not None
                    node.points.update(k.points)
                    home = self._home(self._key(k.qattr, k.bits))
                    del home.nodes[(k.qattr, k.bits)]
                node.lnrt = None


MUTANTS: dict[str, type[TwoDTreeSystem]] = {
    "thesis-split": ThesisAsWrittenSplit,
    "no-seen-inheritance": NoSeenInheritance,
    "no-dedup": NoDedup,
    "no-jump-back": NoJumpBack,
    "closed-segments": ClosedSegments,
    "no-depth-cap": NoDepthCap,
    "merge-below-capacity": MergeBelowCapacity,
}
