"""LBDD: load-balancing data distribution among the subscribers of a topic (seed 003:
Li Kai, Wang Yun, Yin Yi, Yuan Feifei, J. Southeast Univ. 2014), §3.

Every node maps every node to a bucket by the XOR distance of their digests to the source's;
data flows from lower to higher buckets only (one-way dissemination, Theorem 1), each node of a
bucket taking a contiguous slice of the next non-empty bucket (Algorithm 2). Decisions (all in
docs/lbdd.md, each pinned by a test in tests/test_lbdd.py):

- D-L1 order within a bucket: by (digest, address), rank 0-based (Algorithm 1 counts the
  smaller digests: the rank; the address breaks digest ties).
- D-L2 slices: the node of rank j among k takes target ranks [floor(j m / k), floor((j+1) m / k))
  of the next non-empty bucket (m nodes): integers that partition it, also when m/k is not an
  integer or m < k (then some nodes have an empty slice). The paper's bounds
  ratio*(rank-1)+1 .. ratio*rank are not integers in general (erratum LBDD-E1).
- D-L3 empty buckets are skipped: the target is the next NON-EMPTY bucket above one's own.
- D-L4 digest ties with the source (distance 0): such a node is put in bucket 1 — bucket 0 is
  the source's alone, and bucket 1 is the first bucket the source serves.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

DIGEST_BITS = 32


def digest(address: str) -> int:
    """The highest 32 bits of MD5 of the address (LBDD §3.2)."""
    return int.from_bytes(hashlib.md5(address.encode("utf-8")).digest()[:4], "big")


def distance(a: str, b: str) -> int:
    """distance(Ni, Nj) = digest_i XOR digest_j (LBDD §3.2)."""
    return digest(a) ^ digest(b)


def bucket_no(source: str, node: str) -> int:
    """Bucket m iff the distance to the source lies in [2^(m-1), 2^m) (LBDD §3.2); the source
    alone is in bucket 0; a digest tie with the source goes to bucket 1 (D-L4)."""
    if node == source:
        return 0
    return bucket_of_distance(distance(source, node))


def bucket_of_distance(d: int) -> int:
    """m such that d lies in [2^(m-1), 2^m), for a node other than the source; d = 0 (a digest
    tie with the source) is bucket 1 (D-L4)."""
    return max(1, d.bit_length())


def _order(node: str) -> tuple[int, str]:
    return (digest(node), node)  # D-L1


@dataclass(frozen=True)
class LocalBuckets:
    """What Algorithm 1 computes at one node from its own view Pi."""

    self_no: int
    rank: int
    size: int  # members of its own bucket, itself included
    higher: Mapping[int, tuple[str, ...]]  # bucket -> members, ordered, only buckets > self_no


def bucket_construction(me: str, source: str, view: Iterable[str]) -> LocalBuckets:
    """Algorithm 1 (LBDD §3.2): the node's own bucket and rank, and the higher buckets."""
    self_no = bucket_no(source, me)
    same = {me}
    higher: dict[int, list[str]] = {}
    for peer in set(view) | {source}:
        if peer == me:
            continue
        b = bucket_no(source, peer)
        if b == self_no:
            same.add(peer)
        elif b > self_no:  # only farther nodes are candidates for the next hop
            higher.setdefault(b, []).append(peer)
    ordered = sorted(same, key=_order)
    return LocalBuckets(
        self_no,
        ordered.index(me),
        len(ordered),
        {b: tuple(sorted(ms, key=_order)) for b, ms in sorted(higher.items())},
    )


def slice_bounds(rank: int, own_size: int, target_size: int) -> tuple[int, int]:
    """Algorithm 2 (LBDD §3.3), with integer bounds (D-L2)."""
    return rank * target_size // own_size, (rank + 1) * target_size // own_size


def select_targets(local: LocalBuckets) -> tuple[str, ...]:
    """Algorithm 2: this node's slice of the next non-empty higher bucket (D-L3)."""
    if not local.higher:
        return ()
    target = local.higher[min(local.higher)]
    lo, hi = slice_bounds(local.rank, local.size, len(target))
    return target[lo:hi]


def targets(me: str, source: str, view: Iterable[str]) -> tuple[str, ...]:
    return select_targets(bucket_construction(me, source, view))


def build_tree(source: str, members: Sequence[str]) -> dict[str, list[str]]:
    """The dissemination tree when every node has the same view: node -> its children."""
    nodes = sorted({m for m in members if m != source})
    view = [source, *nodes]
    return {n: list(targets(n, source, view)) for n in [source, *nodes]}


def tree_depth(tree: Mapping[str, Sequence[str]], source: str) -> int:
    """Number of edges on the longest path from the source."""
    depth, frontier, seen = 0, [source], {source}
    while True:
        nxt = [c for n in frontier for c in tree.get(n, []) if c not in seen]
        if not nxt:
            return depth
        seen.update(nxt)
        frontier, depth = nxt, depth + 1


def path_update(view: set[str], failed: str | None = None, joined: str | None = None) -> set[str]:
    """Algorithm 3 (LBDD §3.4): a node that detects a failure (heartbeat timeout) or learns of a
    join updates its view Pi; its targets are recomputed from the new view by Algorithm 2."""
    out = set(view)
    if failed is not None:
        out.discard(failed)
    if joined is not None:
        out.add(joined)
    return out


@dataclass(frozen=True)
class Dissemination:
    edges: tuple[tuple[str, str], ...]  # copies sent, in order: (sender, receiver)
    received: Mapping[str, int]  # node -> copies received


TargetRule = Callable[[str, str, Iterable[str]], tuple[str, ...]]


def disseminate(
    source: str,
    alive: Iterable[str],
    views: Mapping[str, Iterable[str]],
    rule: TargetRule | None = None,
) -> Dissemination:
    """One payload from the source, each live node forwarding on its first receipt to the
    targets its own view gives (views may differ while failures are being detected). Sends to
    failed nodes are lost. Edges always go to strictly higher buckets: no cycle is possible."""
    live = set(alive) | {source}
    edges: list[tuple[str, str]] = []
    received: dict[str, int] = {}
    queue = [source]
    forwarded = {source}
    while queue:
        node = queue.pop(0)
        for t in (rule or targets)(node, source, views[node]):
            edges.append((node, t))
            if t not in live:
                continue
            received[t] = received.get(t, 0) + 1
            if t not in forwarded:
                forwarded.add(t)
                queue.append(t)
    return Dissemination(tuple(edges), received)
