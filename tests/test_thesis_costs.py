"""Thesis rules that change cost (hops, messages) but not the delivery set, pinned directly
against the thesis: jump-back to level l/2 (Programs 3.2/3.3), a LeafNodeUpdateMessage refining
the routing tables of every ancestor (§3.2.2, Program 3.1 lines 52-65)."""

from __future__ import annotations

from dataclasses import replace

from pubsub_spec.reference.thesis.config import ThesisConfig
from pubsub_spec.reference.thesis.lnrt import LeafNodeRoutingTable, is_partition
from pubsub_spec.reference.thesis.probes import jump_back
from pubsub_spec.reference.thesis.run import run_and_compare
from pubsub_spec.reference.thesis.workload import thesis_trace


def test_jump_back_goes_to_level_l_over_2() -> None:
    """'Guessing too far, we jump backwards along the tree': level l -> l/2 (Program 3.2 line
    66, Program 3.3 line 53), the ancestor on the same path; not the parent (level l - 1)."""
    assert jump_back("0110") == "01"
    assert jump_back("01101") == "01"  # 5 // 2 = 2
    assert jump_back("011") == "0"
    assert jump_back("1") == ""  # level 1 -> the root
    assert jump_back("") == ""
    path = "1011001110"
    for level in range(len(path) + 1):
        assert jump_back(path[:level]) == path[: level // 2]


def test_leaf_update_refines_the_record() -> None:
    """Program 3.1 line 63: the record 'N split' is replaced by N0 and N1."""
    t = LeafNodeRoutingTable.after_split("")
    assert list(t) == ["0", "1"]
    assert t.apply_split("1")
    assert list(t) == ["0", "10", "11"]
    assert t.apply_split("10")
    assert list(t) == ["0", "100", "101", "11"]
    assert is_partition("", t)
    assert not t.apply_split("0110")  # no such record: ignored (decision D-LNRT)
    assert list(t) == ["0", "100", "101", "11"]
    assert t.record_containing("1011") == "101"


def test_leaf_updates_refine_every_ancestor_up_to_the_root() -> None:
    """With no LeafUpdate lost or coarsened, each split is reported up to the root (Program
    3.1 line 65) and each ancestor replaces the record of the split node by its children (line
    63): the roots' tables name nodes several levels down, every table is a partition of its
    node's zone naming existing nodes, and most records are current leaves. (An update that
    overtakes its parent's is ignored, D-LNRT, so a record may stay stale: not all are leaves.)"""
    config = replace(ThesisConfig(), capacity_min=2, capacity_max=3, max_depth=8)
    trace = thesis_trace(nodes=12, subs_per_node=4, events=3, seed=7, config=config)
    result, comparison = run_and_compare(trace)
    assert comparison.agree, comparison.summary()
    result.system.run_to_quiescence()  # splits of the last inserts report up meanwhile
    nodes = result.system.tree_nodes()
    existing = {(n.qattr, n.bits) for n in nodes}
    leaves = {(n.qattr, n.bits) for n in nodes if n.lnrt is None}
    records = leaf_records = 0
    root_depths: list[int] = []
    for n in nodes:
        if n.lnrt is None:
            continue
        assert is_partition(n.bits, n.lnrt), (n.qattr, n.bits, list(n.lnrt))
        for r in n.lnrt:
            assert (n.qattr, r) in existing, (n.qattr, n.bits, r)
            records += 1
            leaf_records += (n.qattr, r) in leaves
            if n.bits == "":
                root_depths.append(len(r))
    assert max(root_depths) >= 3, "no update climbed two levels to a root"
    assert leaf_records >= 0.9 * records, (leaf_records, records)
