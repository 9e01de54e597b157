"""LBDD: load-balancing data distribution among the subscribers of a topic (
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
- D-L6 path update: a node recomputes Algorithm 1 and 2 from its whole updated view, whatever
  bucket the failed or joined node is in (Algorithm 3 as printed only handles a higher bucket:
  erratum LBDD-E4, kept as `path_update_as_printed` to show what it misses).
- D-L7 failure detection: heartbeats every `period` with a per-node phase, each arriving after
  a delay in [0, max_delay]; a peer is dropped `timeout` after its last heartbeat arrived; a
  join is broadcast, reaching each node after a delay in [0, max_delay]; a joiner starts with
  every node it could have heard of. Views agree again `settled_after()`.
"""

from __future__ import annotations

import functools
import hashlib
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

DIGEST_BITS = 32


@functools.lru_cache(maxsize=1 << 16)
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
    join updates its view Pi; its targets are recomputed from the new view by Algorithms 1 and 2
    (`targets`), whatever bucket the changed node is in (D-L6)."""
    out = set(view)
    if failed is not None:
        out.discard(failed)  # LBDD §3.4: a failure is an unsubscription from every topic
    if joined is not None:
        out.add(joined)  # LBDD §3.4: a joining agent broadcasts itself to all others
    return out


def path_update_as_printed(local: LocalBuckets, source: str, failed: str) -> LocalBuckets:
    """Algorithm 3 exactly as printed (LBDD §3.4): the failed peer is deleted only when its bucket
    is higher than one's own; a failure in one's own bucket leaves rank and size unchanged, so
    the failed node's slice of the next bucket is served by nobody (erratum LBDD-E4). Kept as a
    mutant: tests/test_lbdd.py shows it misses live subscribers."""
    b = bucket_no(source, failed)
    if b <= local.self_no or failed not in local.higher.get(b, ()):
        return local
    higher = {k: tuple(n for n in v if n != failed) for k, v in local.higher.items()}
    kept = {k: v for k, v in higher.items() if v}
    return LocalBuckets(local.self_no, local.rank, local.size, kept)


@dataclass(frozen=True)
class Churn:
    """Failures and joins (times in seconds) and the heartbeat parameters (LBDD §2.1, §3.4)."""

    fail_at: Mapping[str, float] = field(default_factory=dict)
    join_at: Mapping[str, float] = field(default_factory=dict)
    period: float = 1.0
    timeout: float = 3.0
    max_delay: float = 0.5

    def __post_init__(self) -> None:
        if self.timeout <= self.period + self.max_delay:
            raise ValueError("timeout must exceed period + max_delay (no false suspicion)")


@dataclass(frozen=True)
class HeartbeatViews:
    """Every node's view Pi over time under heartbeat failure detection (LBDD §3.4, D-L7).
    All random draws are made once, from the generator given to `heartbeat_views`."""

    source: str
    nodes: tuple[str, ...]
    churn: Churn
    detected: Mapping[tuple[str, str], float]  # (observer, failed peer) -> time it is dropped
    learned: Mapping[tuple[str, str], float]  # (observer, joiner) -> time the broadcast arrives

    def alive(self, now: float) -> set[str]:
        """Nodes that have joined and not failed at `now` (the source never fails)."""
        return {n for n in self.nodes if self._up(n, now)}

    def _up(self, n: str, now: float) -> bool:
        joined = self.churn.join_at.get(n, float("-inf")) <= now
        return joined and now < self.churn.fail_at.get(n, float("inf"))

    def view(self, observer: str, now: float) -> set[str]:
        """Pi of `observer` at `now`: known peers whose failure it has not yet detected."""
        out: set[str] = set()
        for p in self.nodes:
            if p == observer:
                continue
            join = self.churn.join_at.get(p)
            mine = self.churn.join_at.get(observer)
            known = join is None or (mine is not None and join <= mine)
            known = known or self.learned.get((observer, p), float("inf")) <= now
            if known and now < self.detected.get((observer, p), float("inf")):
                out.add(p)
        return out

    def views(self, now: float) -> dict[str, set[str]]:
        return {o: self.view(o, now) for o in sorted(self.alive(now))}

    def settled_after(self) -> float:
        """From this time on, every live node's view is exactly the set of live nodes."""
        times = [*self.detected.values(), *self.learned.values(), 0.0]
        return max(times)


def heartbeat_views(
    source: str, nodes: Sequence[str], churn: Churn, rng: random.Random
) -> HeartbeatViews:
    """Draw heartbeat phases and delays (LBDD §3.4: "each node periodically sends its heartbeat
    message to the others"; a timeout removes the peer from Pi). `nodes` includes joiners."""
    everyone = tuple(sorted({source, *nodes}))
    phase = {n: rng.uniform(0.0, churn.period) for n in everyone}
    detected: dict[tuple[str, str], float] = {}
    learned: dict[tuple[str, str], float] = {}
    for p in everyone:
        for o in everyone:
            if o == p:
                continue
            delay = rng.uniform(0.0, churn.max_delay)
            if p in churn.fail_at:
                f = churn.fail_at[p]
                beats = (f - phase[p]) // churn.period  # last heartbeat sent before the failure
                detected[(o, p)] = phase[p] + beats * churn.period + delay + churn.timeout
            if p in churn.join_at:
                learned[(o, p)] = churn.join_at[p] + rng.uniform(0.0, churn.max_delay)
    return HeartbeatViews(source, everyone, churn, detected, learned)


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
