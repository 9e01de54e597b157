"""Direct tests of the rules that change cost but not deliveries, each
against the papers' definitions on a worked example built here, and each shown to fail on the
obvious mutant (applied with monkeypatch inside the test; the check must then report False):

- prefix-grouped multicast of probes (thesis §3.4.2, Fig. 3.3, Program 3.4);
- the jump-back of a probe to level l/2 (Program 3.2 line 66, Program 3.3 line 53);
- LeafNodeUpdateMessage refining the ancestors' routing tables (§3.2.2, Program 3.1 l. 52-65);
- LBDD's XOR distance and its buckets (LBDD §3.2).

tests/test_thesis_costs.py pins the pure functions; here the checks run through the system's
handlers (reference/thesis/system.py), so a mutant anywhere on the path is seen."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import pytest

from pubsub_spec.reference.common.model import Attribute, Event, Schema
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.lbdd import algorithms as lbdd
from pubsub_spec.reference.overlay.pastry import PastryRing
from pubsub_spec.reference.thesis import system as system_mod
from pubsub_spec.reference.thesis.config import SECTION, ThesisConfig
from pubsub_spec.reference.thesis.lnrt import LeafNodeRoutingTable
from pubsub_spec.reference.thesis.messages import LeafUpdate, ProbePub, ProbePubMulticast
from pubsub_spec.reference.thesis.system import Peer, TwoDTreeSystem
from pubsub_spec.reference.thesis.tree import TreeNode

Q = "s/b"
SCHEMA = Schema("s", (Attribute("b", "int", 0, 15),))
EVENT = Event("e1", "n0", "s", (("b", 3),))


def _system(config: ThesisConfig | None = None) -> TwoDTreeSystem:
    cfg = config or ThesisConfig(capacity_min=2, capacity_max=2, max_depth=8)
    trace = Trace((SCHEMA,), (), initial_nodes=4, seed=1, sections=((SECTION, cfg),))
    return TwoDTreeSystem.for_trace(trace)


# -- prefix-grouped multicast (§3.4.2) -------------------------------------------------------
# The worked example of Fig. 3.3 on a 24-bit ring with hex digits (Pastry base 2^4, the
# thesis' digits): source 0x65a1fc probes 0xd09b2a, 0xde3981, 0xde74f7 (all starting with "d")
# and 0x1abcde. By §3.4.2 the three "d" ids share the source's routing-table entry for "d",
# 0xd0320b, and travel in ONE message; 0xd0320b is home for 0xd09b2a (removed from the list
# there) and regroups the other two, which share the prefix "de", into one message to 0xde6310,
# home for both. 0x1abcde goes alone to 0x1f0000. The other peers only fill the ring so that
# the leaf sets (size 2) do not cover everything; 0xdf8000 makes the source's entry for "d"
# (one of the peers starting with "d", picked by a hash in reference/overlay/pastry.py) the
# figure's 0xd0320b.
SOURCE, D0, DE, ONE = 0x65A1FC, 0xD0320B, 0xDE6310, 0x1F0000
PEERS = (SOURCE, D0, DE, ONE, 0x300000, 0x900000, 0xA00000, 0xDF8000, 0xF00000)
KEYS = {"d09b2a": 0xD09B2A, "de3981": 0xDE3981, "de74f7": 0xDE74F7, "1abcde": 0x1ABCDE}
EXPECTED_HOPS = {
    (SOURCE, D0, frozenset({"d09b2a", "de3981", "de74f7"})),
    (SOURCE, ONE, frozenset({"1abcde"})),
    (D0, DE, frozenset({"de3981", "de74f7"})),
}
EXPECTED_HOMES = {(D0, "d09b2a"), (DE, "de3981"), (DE, "de74f7"), (ONE, "1abcde")}


def _multicast_tree(monkeypatch: pytest.MonkeyPatch) -> tuple[set[Any], set[Any]]:
    """Run Program 3.4 hop by hop on the example ring: the messages sent (from, to, ids) and
    the ids handed to the tree-node lookup at each peer."""
    s = _system(ThesisConfig(id_bits=24, digit_bits=4, leaf_set_size=2, probe="multicast"))
    ring = PastryRing(24, 4, 2)
    for pid in PEERS:
        ring.add(pid)
    s.ring, s.ready_ring = ring, ring
    s.peers = {pid: Peer(f"{pid:06x}", pid, 2, True) for pid in PEERS}
    s.pid_of = {p.name: pid for pid, p in s.peers.items()}
    monkeypatch.setattr(s, "_key", lambda q, bits: KEYS[bits])
    sent: list[tuple[int, int, ProbePubMulticast]] = []
    homes: set[tuple[int, str]] = set()

    def send_direct(src: Peer, dst: int, msg: object, key: int | None = None) -> None:
        assert isinstance(msg, ProbePubMulticast)
        sent.append((src.pid, dst, msg))

    def on_probe_pub(peer: Peer, msg: ProbePub) -> None:
        homes.add((peer.pid, msg.target))

    monkeypatch.setattr(s, "send_direct", send_direct)
    monkeypatch.setattr(s, "_on_probe_pub", on_probe_pub)
    first = ProbePubMulticast(EVENT, tuple((Q, k) for k in KEYS))
    s._on_probe_pub_multicast(s.peers[SOURCE], first)
    hops: set[tuple[int, int, frozenset[str]]] = set()
    i = 0
    while i < len(sent):  # deliver each multicast hop to its next peer, breadth first
        src, dst, msg = sent[i]
        hops.add((src, dst, frozenset(b for _, b in msg.dests)))
        s._on_probe_pub_multicast(s.peers[dst], msg)
        i += 1
    return hops, homes


def _multicast_check(monkeypatch: pytest.MonkeyPatch) -> bool:
    hops, homes = _multicast_tree(monkeypatch)
    return hops == EXPECTED_HOPS and homes == EXPECTED_HOMES


def test_multicast_groups_probes_by_shared_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    hops, homes = _multicast_tree(monkeypatch)
    assert hops == EXPECTED_HOPS, sorted(hops)
    assert homes == EXPECTED_HOMES
    assert sum(1 for src, _, _ in hops if src == SOURCE) == 2  # four probes, two messages


def test_multicast_check_rejects_grouping_by_destination(monkeypatch: pytest.MonkeyPatch) -> None:
    """MUTANT: group by the id's home (one message per destination peer, i.e. unicast with
    the ids of one home merged) instead of by the next hop: the source sends three messages."""
    monkeypatch.setattr(
        TwoDTreeSystem, "_first_hop", lambda self, peer, key: self.ready_ring.closest(key)
    )
    assert not _multicast_check(monkeypatch)


def test_multicast_check_rejects_no_regrouping(monkeypatch: pytest.MonkeyPatch) -> None:
    """MUTANT: the source's groups are forwarded whole to the first home on the way (no
    regrouping at each hop, §3.4.2 'at each hop the list of target Ids is regrouped')."""
    orig = TwoDTreeSystem._on_probe_pub_multicast

    def no_regroup(self: TwoDTreeSystem, peer: Peer, msg: ProbePubMulticast) -> None:
        if peer.pid == SOURCE:
            orig(self, peer, msg)
            return
        for q, bits in msg.dests:  # every id handled here, none forwarded
            self._on_probe_pub(peer, ProbePub(msg.event, q, bits))

    monkeypatch.setattr(TwoDTreeSystem, "_on_probe_pub_multicast", no_regroup)
    assert not _multicast_check(monkeypatch)


# -- jump-back to level l/2 ------------------------------------------------------------------
def _jump_back_targets(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """ProbePubs sent to tree nodes that do not exist, levels 0..7 on one path: where does
    each go next? (Only the root exists.)"""
    s = _system()
    out: list[str] = []

    def send_key(src: Peer, key: int, msg: object) -> None:
        assert isinstance(msg, ProbePub)
        out.append(msg.target)

    monkeypatch.setattr(s, "send_key", send_key)
    peer = next(iter(s.peers.values()))
    path = "0110100"
    for level in range(1, len(path) + 1):
        s._on_probe_pub(peer, ProbePub(EVENT, Q, path[:level]))
    assert s.metrics.jump_backs == len(path)
    return out


def _jump_back_check(monkeypatch: pytest.MonkeyPatch) -> bool:
    # Program 3.3 line 53: level l -> level floor(l/2), the ancestor on the same path
    return _jump_back_targets(monkeypatch) == ["", "0", "0", "01", "01", "011", "011"]


def test_jump_back_goes_to_level_half(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _jump_back_check(monkeypatch)


@pytest.mark.parametrize(
    "mutant",
    [
        lambda bits: bits[:-1],  # the parent (level l - 1)
        lambda bits: bits[: (len(bits) + 1) // 2],  # ceil(l / 2)
        lambda bits: "",  # straight to the root
    ],
)
def test_jump_back_check_rejects_mutants(
    monkeypatch: pytest.MonkeyPatch, mutant: Callable[[str], str]
) -> None:
    monkeypatch.setattr(system_mod, "jump_back", mutant)
    assert not _jump_back_check(monkeypatch)


# -- LeafUpdate refines the ancestors' tables ------------------------------------------------
def _leaf_update_run(monkeypatch: pytest.MonkeyPatch) -> tuple[list[list[str]], list[Any]]:
    """Node "0" knows its children {00, 01}; the updates "01 split" then "011 split" arrive,
    then a stale "0100 split" (no such record: D-LNRT). Tables after each, updates forwarded."""
    s = _system()
    peer = next(iter(s.peers.values()))
    node = TreeNode(Q, "0", lnrt=LeafNodeRoutingTable.after_split("0"))
    s._host(peer, node)
    sent: list[Any] = []
    monkeypatch.setattr(s, "send_key", lambda src, key, msg: sent.append((msg.split, msg.target)))
    tables: list[list[str]] = []
    for split in ("01", "011", "0100"):
        s._on_leaf_update(peer, LeafUpdate(Q, split, "0"))
        assert node.lnrt is not None
        tables.append(list(node.lnrt))
    return tables, sent


def _leaf_update_check(monkeypatch: pytest.MonkeyPatch) -> bool:
    tables, sent = _leaf_update_run(monkeypatch)
    # Program 3.1 line 63: the record of the split node is replaced by its two children;
    # line 65: the update is forwarded to the parent ("" here), unchanged
    return tables == [
        ["00", "010", "011"],
        ["00", "010", "0110", "0111"],
        ["00", "010", "0110", "0111"],
    ] and sent == [("01", ""), ("011", ""), ("0100", "")]


def test_leaf_update_refines_and_climbs(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _leaf_update_check(monkeypatch)


def _keep_record(self: LeafNodeRoutingTable, node: str) -> bool:
    if node not in self._records:
        return False
    self._records.update((node + "0", node + "1"))  # MUTANT: the split record is kept
    return True


def _add_blindly(self: LeafNodeRoutingTable, node: str) -> bool:
    self._records.discard(node)  # MUTANT: a stale update is applied, not ignored
    self._records.update((node + "0", node + "1"))
    return True


@pytest.mark.parametrize("mutant", [_keep_record, _add_blindly])
def test_leaf_update_check_rejects_mutants(
    monkeypatch: pytest.MonkeyPatch, mutant: Callable[[LeafNodeRoutingTable, str], bool]
) -> None:
    monkeypatch.setattr(LeafNodeRoutingTable, "apply_split", mutant)
    assert not _leaf_update_check(monkeypatch)


def test_leaf_update_check_rejects_no_forwarding(monkeypatch: pytest.MonkeyPatch) -> None:
    """MUTANT: the update stops at the first ancestor (line 65 skipped)."""
    orig = TwoDTreeSystem._on_leaf_update

    def stop(self: TwoDTreeSystem, peer: Peer, msg: LeafUpdate) -> None:
        monkeypatch.setattr(self, "send_key", lambda *a: None)
        orig(self, peer, msg)

    monkeypatch.setattr(TwoDTreeSystem, "_on_leaf_update", stop)
    assert not _leaf_update_check(monkeypatch)


# -- LBDD distance and buckets (LBDD §3.2) ----------------------------------------------
ADDRESSES = [f"10.0.{i}.{i * 7 % 251}" for i in range(24)]


def _md5_top32(a: str) -> int:
    return int.from_bytes(hashlib.md5(a.encode()).digest()[:4], "big")


def _lbdd_check() -> bool:
    """distance = digest XOR digest; bucket m iff 2^(m-1) <= distance < 2^m, computed here from
    MD5 independently of the reference, for every ordered pair of a fixed address list."""
    for src in ADDRESSES:
        for n in ADDRESSES:
            if n == src:
                continue
            d = _md5_top32(src) ^ _md5_top32(n)
            if lbdd.distance(src, n) != d:
                return False
            m = lbdd.bucket_no(src, n)
            if not (1 << (m - 1) <= d < 1 << m):
                return False
    return True


def test_lbdd_buckets_worked_example() -> None:
    """Bucket bounds by hand: d = 1 -> 1; 2, 3 -> 2; 4..7 -> 3; 2^31 -> 32. Digests 0b1000 and
    0b0111 are at XOR distance 15 (bucket 4) though they differ by 1 (bucket 1)."""
    assert [lbdd.bucket_of_distance(d) for d in (1, 2, 3, 4, 7, 8, 1 << 31)] == [
        1, 2, 2, 3, 3, 4, 32,
    ]  # fmt: skip
    assert lbdd.bucket_of_distance(0b1000 ^ 0b0111) == 4
    assert lbdd.bucket_of_distance(0b1000 - 0b0111) == 1
    assert _lbdd_check()


def test_lbdd_check_rejects_subtraction(monkeypatch: pytest.MonkeyPatch) -> None:
    """MUTANT: |d_i - d_j| instead of XOR. Some pair of the list lands in another bucket."""
    differ = [
        (a, b)
        for a in ADDRESSES
        for b in ADDRESSES
        if a != b
        and (_md5_top32(a) ^ _md5_top32(b)).bit_length()
        != abs(_md5_top32(a) - _md5_top32(b)).bit_length()
    ]
    assert differ  # the example list can tell the two apart
    monkeypatch.setattr(lbdd, "distance", lambda a, b: abs(lbdd.digest(a) - lbdd.digest(b)))
    assert not _lbdd_check()


def test_lbdd_check_rejects_shifted_buckets(monkeypatch: pytest.MonkeyPatch) -> None:
    """MUTANT: bucket m iff 2^m <= d < 2^(m+1) (off by one)."""
    monkeypatch.setattr(lbdd, "bucket_of_distance", lambda d: max(1, d.bit_length() - 1))
    assert not _lbdd_check()
