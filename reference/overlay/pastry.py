"""A Pastry-like DHT (thesis §2.1.2, §4.1.1): 160-bit SHA-1 ids, prefix routing in base 2^4
with a routing table and a leaf set of 16; an object lives on the live peer whose id is
numerically closest to its key.

Routing state is derived from the current membership (repaired eagerly on join, leave and
failure; decision D-DHT): the routing-table entry of peer P for row r and digit d is a member of
the peers sharing r+1 digits with the key, cached until the membership changes. Which member:

- default: a deterministic pseudo-random one (no network model);
- with `proximity` (a one-way latency between two peer ids): proximity neighbour selection
  (PNS; thesis §2.1.2: each entry "is chosen according to a close proximity metric"), the
  candidate closest to P, ties broken by the smaller id. With more than `proximity_candidates`
  candidates only a deterministic pseudo-random sample of that many is measured (PNS(k):
  Gummadi et al., SIGCOMM 2003, §5, find a sample of 16 near ideal PNS; Castro et al.,
  MSR-TR-2002-82 / MSR-TR-2003-52, approximate the closest by constrained gossiping);
  0 measures all (perfect PNS). Decision D-DHT in docs/thesis.md.
"""

from __future__ import annotations

import bisect
import hashlib
import random
from collections.abc import Callable

# One-way latency between two peer ids (ms), the metric of proximity neighbour selection.
Proximity = Callable[[int, int], float]
# PNS(k) sample size (Gummadi et al., SIGCOMM 2003, §5: 16 samples come near ideal PNS).
DEFAULT_PNS_CANDIDATES = 16


def sha1_id(text: str) -> int:
    """160-bit SHA-1 id (thesis §4.1.1: "Number of bits in Id is 160")."""
    return int.from_bytes(hashlib.sha1(text.encode("utf-8")).digest(), "big")


class PastryRing:
    """Membership, numeric closeness, leaf sets and next-hop prefix routing."""

    def __init__(
        self,
        id_bits: int = 160,
        digit_bits: int = 4,
        leaf_set_size: int = 16,
        proximity: Proximity | None = None,
        proximity_candidates: int = DEFAULT_PNS_CANDIDATES,
    ) -> None:
        if proximity_candidates < 0:
            raise ValueError(f"proximity_candidates must be >= 0, got {proximity_candidates}")
        self.proximity = proximity
        self.proximity_candidates = proximity_candidates
        self.id_bits = id_bits
        self.digit_bits = digit_bits
        self.digits = id_bits // digit_bits
        self.leaf_half = leaf_set_size // 2
        self.space = 1 << id_bits
        self._ids: list[int] = []
        self._rt_cache: dict[tuple[int, int], int | None] = {}
        self._home_cache: dict[int, int] = {}

    # -- membership ------------------------------------------------------------------------
    def add(self, pid: int) -> None:
        i = bisect.bisect_left(self._ids, pid)
        if i < len(self._ids) and self._ids[i] == pid:
            raise ValueError(f"peer id collision {pid:x}")
        self._ids.insert(i, pid)
        self._rt_cache.clear()
        self._home_cache.clear()

    def remove(self, pid: int) -> None:
        i = bisect.bisect_left(self._ids, pid)
        if i >= len(self._ids) or self._ids[i] != pid:
            raise KeyError(pid)
        del self._ids[i]
        self._rt_cache.clear()
        self._home_cache.clear()

    def __contains__(self, pid: int) -> bool:
        i = bisect.bisect_left(self._ids, pid)
        return i < len(self._ids) and self._ids[i] == pid

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def ids(self) -> list[int]:
        return list(self._ids)

    # -- numeric closeness -----------------------------------------------------------------
    def ring_distance(self, a: int, b: int) -> int:
        d = abs(a - b)
        return min(d, self.space - d)

    def closest(self, key: int, exclude: frozenset[int] = frozenset()) -> int:
        """The live peer numerically closest to `key` on the ring (ties: the smaller id)."""
        if not exclude:
            hit = self._home_cache.get(key)
            if hit is None:
                hit = self._home_cache[key] = self.closest(key, frozenset({-1}))
            return hit
        ids = self._ids
        n = len(ids)
        i = bisect.bisect_left(ids, key)
        succ = next((ids[(i + s) % n] for s in range(n) if ids[(i + s) % n] not in exclude), None)
        pred = next(
            (ids[(i - 1 - s) % n] for s in range(n) if ids[(i - 1 - s) % n] not in exclude), None
        )
        if succ is None or pred is None:
            raise LookupError("no live peer")
        return min((succ, pred), key=lambda c: (self.ring_distance(c, key), c))

    def k_closest(self, key: int, k: int, exclude: frozenset[int] = frozenset()) -> list[int]:
        """The k live peers numerically closest to `key` (the replica set, thesis §3.6)."""
        out: list[int] = []
        ex = set(exclude)
        while len(out) < k and len(ex) < len(self._ids):
            c = self.closest(key, frozenset(ex))
            out.append(c)
            ex.add(c)
        return out

    def leaf_set(self, pid: int) -> list[int]:
        """The 16 numerically nearest peers, 8 on each side (thesis §4.1.1: LeafSet size 16), of
        a member `pid` (a KeyError otherwise: a leaf set is a member's state, Pastry §2.1.2)."""
        ids = self._ids
        n = len(ids)
        i = bisect.bisect_left(ids, pid)
        if i >= n or ids[i] != pid:
            raise KeyError(pid)
        h = min(self.leaf_half, (n - 1) // 2 + ((n - 1) % 2))
        out: list[int] = []
        for s in range(1, h + 1):
            for j in ((i + s) % n, (i - s) % n):
                if ids[j] != pid and ids[j] not in out:
                    out.append(ids[j])
        return out

    # -- prefix routing --------------------------------------------------------------------
    def shared_prefix(self, a: int, b: int) -> int:
        x = a ^ b
        if x == 0:
            return self.digits
        return (self.id_bits - x.bit_length()) // self.digit_bits

    def _in_leaf_range(self, pid: int, key: int) -> bool:
        n = len(self._ids)
        if n <= 2 * self.leaf_half + 1:
            return True
        i = bisect.bisect_left(self._ids, pid)
        lo = self._ids[(i - self.leaf_half) % n]
        hi = self._ids[(i + self.leaf_half) % n]
        if lo <= hi:
            return lo <= key <= hi
        return key >= lo or key <= hi

    def _table_entry(self, pid: int, row: int, key: int) -> int | None:
        """Routing table R[row][digit(key,row)] of peer pid: a peer sharing row+1 digits with
        the key (Pastry, thesis §2.1.2, Fig. 2.1)."""
        shift = self.id_bits - (row + 1) * self.digit_bits
        prefix = key >> shift
        cache_key = (pid, (row << 200) | prefix)
        if cache_key in self._rt_cache:
            return self._rt_cache[cache_key]
        lo_v, hi_v = prefix << shift, ((prefix + 1) << shift) - 1
        a = bisect.bisect_left(self._ids, lo_v)
        b = bisect.bisect_right(self._ids, hi_v)
        entry: int | None = None
        if b > a and self.proximity is not None:
            entry = self._nearest(pid, row, prefix, a, b, self.proximity)
        elif b > a:
            pick = sha1_id(f"{pid:x}/{row}/{prefix:x}") % (b - a)
            entry = self._ids[a + pick]
        self._rt_cache[cache_key] = entry
        return entry

    def _nearest(
        self, pid: int, row: int, prefix: int, a: int, b: int, proximity: Proximity
    ) -> int:
        """Proximity neighbour selection (thesis §2.1.2; Castro et al. 2002): among the peers
        self._ids[a:b] (all share row+1 digits with the key), the one closest to pid; with more
        than proximity_candidates of them, the closest of a seeded sample of that many (PNS(k),
        Gummadi et al. 2003, §5). Ties: the smaller id."""
        n, k = b - a, self.proximity_candidates
        if k == 0 or n <= k:
            candidates = self._ids[a:b]
        else:
            rng = random.Random(f"pns:{pid:x}/{row}/{prefix:x}")
            candidates = [self._ids[a + i] for i in sorted(rng.sample(range(n), k))]
        return min(candidates, key=lambda c: (proximity(pid, c), c))

    def next_hop(self, pid: int, key: int) -> int:
        """One Pastry routing step from `pid` toward `key` (returns pid when pid is home)."""
        home = self.closest(key)
        if home == pid:
            return pid
        if self._in_leaf_range(pid, key):
            return home
        row = self.shared_prefix(pid, key)
        entry = self._table_entry(pid, row, key)
        if entry is None or entry == pid:
            return home  # rare case: no better entry; the leaf set knows a closer peer
        return entry

    def route(self, src: int, key: int) -> list[int]:
        """The peers a message visits from src to the key's home, src excluded."""
        hops: list[int] = []
        cur = src
        for _ in range(self.digits + 2):
            nxt = self.next_hop(cur, key)
            if nxt == cur:
                return hops
            hops.append(nxt)
            cur = nxt
        raise RuntimeError(f"routing loop toward {key:x}")
