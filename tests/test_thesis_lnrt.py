"""LeafNodeRoutingTable (thesis §3.2.2, Table 3.1) and decision D-LNRT."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pubsub_spec.reference.thesis.lnrt import LeafNodeRoutingTable, is_partition


def test_update_replaces_the_split_record() -> None:
    t = LeafNodeRoutingTable.after_split("01")
    assert t.apply_split("010")
    assert list(t) == ["0100", "0101", "011"]


def test_updates_for_unknown_records_are_ignored() -> None:
    """An update overtaking an older one (ancestor record present) or arriving late
    (descendants present) is ignored: the table stays a partition of existing nodes."""
    t = LeafNodeRoutingTable.after_split("")
    assert not t.apply_split("000")  # "0" not split in this table yet
    assert t.apply_split("0")
    assert not t.apply_split("0")  # late duplicate
    assert list(t) == ["00", "01", "1"]


@given(st.lists(st.text("01", min_size=1, max_size=8), max_size=40), st.integers(2, 6))
def test_any_update_sequence_and_coarsening_keep_a_partition(splits: list[str], cap: int) -> None:
    t = LeafNodeRoutingTable.after_split("")
    for s in splits:
        t.apply_split(s)
        assert is_partition("", t)
    t.coarsen(cap)
    assert is_partition("", t)
    assert len(t) <= max(cap, 2) or all(not r.endswith("0") for r in t)


def test_record_lookup_and_overlap() -> None:
    t = LeafNodeRoutingTable("0", ["00", "010", "011"])
    assert t.record_containing("0110101") == "011"


def test_rebuild_from_parent_falls_back_to_children() -> None:
    assert list(LeafNodeRoutingTable.rebuilt_from_parent("1", ["0", "10", "11"])) == ["10", "11"]
    assert list(LeafNodeRoutingTable.rebuilt_from_parent("1", ["0", "1"])) == ["10", "11"]
    good = LeafNodeRoutingTable.rebuilt_from_parent("1", ["0", "10", "110", "111"])
    assert list(good) == ["10", "110", "111"]
