"""LeafNodeRoutingTable: soft links from a tree node to the leaves below it (thesis §3.2.2,
Table 3.1), updated reactively by LeafNodeUpdateMessage (Program 3.1, lines 52-65).

Invariant kept by every operation here: the records of a node partition its zone (they are the
leaves of a full binary tree rooted at the node) and every record names a node that exists.
Records may be stale (a record's node may since have split: it forwards further) or coarsened;
correctness never depends on their freshness (thesis §3.2.2), only on this invariant.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from pubsub_spec.reference.thesis.space import CellRect, TargetArea, zone_cells


def is_partition(owner: str, records: Iterable[str]) -> bool:
    """True iff `records` are the leaves of a full binary tree rooted at `owner`."""
    total = 0
    depth = len(owner)
    recs = sorted(records)
    for i, r in enumerate(recs):
        if not r.startswith(owner) or len(r) == depth:
            return False
        if i + 1 < len(recs) and recs[i + 1].startswith(r):
            return False
        total += 1 << (64 - (len(r) - depth))
    return total == 1 << 64


class LeafNodeRoutingTable:
    """Records are tree-node bit strings below `owner` (attribute name is the tree's)."""

    def __init__(self, owner: str, records: Iterable[str]) -> None:
        self.owner = owner
        self._records: set[str] = set(records)
        # the records sorted, and the set they were sorted from (checked at each use, so that
        # code that changes _records directly, such as the mutants, is still seen)
        self._sorted: list[str] = []
        self._sorted_from: set[str] = set()
        self._zones: list[tuple[str, CellRect]] = []
        self._zones_of: list[str] | None = None
        self._zones_k = 0
        assert is_partition(owner, self._records), (owner, sorted(self._records))

    @staticmethod
    def after_split(owner: str) -> LeafNodeRoutingTable:
        """A node that splits knows its two children (thesis Program 3.1, line 52)."""
        return LeafNodeRoutingTable(owner, (owner + "0", owner + "1"))

    def _in_order(self) -> list[str]:
        if self._sorted_from != self._records:
            self._sorted_from = set(self._records)
            self._sorted = sorted(self._records)
        return self._sorted

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._in_order()))

    def __len__(self) -> int:
        return len(self._records)

    def record_containing(self, path: str) -> str:
        """The record whose zone contains the point with this path (RndLeafProbe, Program 3.2,
        line 59)."""
        for i in range(len(self.owner) + 1, len(path) + 1):
            if path[:i] in self._records:
                return path[:i]
        raise LookupError(f"no record of {self.owner!r} contains {path!r}")

    def records_overlapping(self, area: TargetArea, k: int) -> list[str]:
        """Records whose zone overlaps the target area (RndRegionProbe, Program 3.3, line 49)."""
        records = self._in_order()
        if self._zones_of is not records or self._zones_k != k:
            # the zones of the records in order, kept with the order they were computed for
            self._zones = [(r, zone_cells(r, k)) for r in records]
            self._zones_of, self._zones_k = records, k
        overlaps = area.overlaps_zone
        return [r for r, zone in self._zones if overlaps(zone)]

    def apply_split(self, node: str) -> bool:
        """LeafNodeUpdateMessage "node split into node0, node1" (Program 3.1, line 63).

        Replaces the record `node` by its children. If the table holds an ancestor record of
        `node` (coarse, or this update overtook an older one) or descendant records (a late
        update), the update is ignored: both keep the partition invariant (decision D-LNRT).
        """
        if node not in self._records:
            return False
        self._records.discard(node)
        self._records.update((node + "0", node + "1"))
        return True

    def coarsen(self, max_records: int) -> int:
        """Local merge of records to save memory (thesis §3.2.2: "A node can also merge some
        leaf node records locally"): deepest sibling pairs are merged into their parent."""
        merged = 0
        while len(self._records) > max(2, max_records):
            pairs = [
                r[:-1] for r in self._records if r.endswith("0") and r[:-1] + "1" in self._records
            ]
            pairs = [p for p in pairs if len(p) > len(self.owner)]
            if not pairs:
                break
            p = max(pairs, key=lambda s: (len(s), s))
            self._records -= {p + "0", p + "1"}
            self._records.add(p)
            merged += 1
        return merged

    @staticmethod
    def rebuilt_from_parent(owner: str, parent_records: Iterable[str]) -> LeafNodeRoutingTable:
        """After a node's home fails, its new home rebuilds the table from a copy of the parent's
        (thesis §3.6); if that copy does not describe the node's zone, the node's two children
        (which exist, since the node is internal) are a correct table."""
        mine = [r for r in parent_records if r.startswith(owner) and r != owner]
        if is_partition(owner, mine):
            return LeafNodeRoutingTable(owner, mine)
        return LeafNodeRoutingTable.after_split(owner)
