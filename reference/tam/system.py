"""Tam, Azimi and Jacobsen's schema-based content-based pub/sub over a DHT (DBISP2P 2003), behind
the common System interface (reference/sim/system.py).

`TamSystem` (§3.3): a subscription registers on the keys of its selected indices (§3.2, §3.5,
§3.6) by joining their Scribe groups; a publication is sent to the key of every applicable index,
routed to the group's root and multicast down the tree; a member peer completes the matching
against the subscriptions it registered on that key and filters misses (§3.4), or, under the
`all` policy, matches all its subscriptions at the first arrival and drops later copies with its
seen-list (§3.6). `TamBasicSystem` (§3.2): subscriptions are stored at the key's home node, which
matches each publication with a centralised matcher and notifies the fully matching subscribers.
Decisions T1-T17 are in docs/tam.md.

Observations (conformance/OBSERVATIONS.md, "tam, tam-basic"; format version 1): with an
observer set, every message is reported where it is counted (`send`, `count`, `_route`,
`_rehome`, the home's notifications), Scribe's tree changes through `tree_changed`, and Tam's
index keys where they are registered (at the subscriber) and stored (at a home of the basic
scheme). Nodes are named by their trace names (every Pastry peer is a trace peer, its id the
SHA-1 of its name), keys as 40 hex digits. Without an observer every site costs one test.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Self

from pubsub_spec.reference.common.matching import matches
from pubsub_spec.reference.common.model import Event, MatchMode, Schema, Subscription
from pubsub_spec.reference.common.ops import Subscribe, Trace, initial_node_names, op_where
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.overlay.pastry import PastryRing, sha1_id
from pubsub_spec.reference.overlay.scribe import (
    PARENT,
    Scribe,
    ScribeHost,
    ScribeJoin,
    ScribeMessage,
    ScribeMulticast,
    ScribePublish,
    message_name,
    message_size,
)
from pubsub_spec.reference.sim.installation import Installation
from pubsub_spec.reference.sim.latency import LatencyModel
from pubsub_spec.reference.sim.metrics import Metrics
from pubsub_spec.reference.sim.observe import SEND, STATE, Observation, state
from pubsub_spec.reference.sim.observe import send as sent
from pubsub_spec.reference.sim.sizes import event_size
from pubsub_spec.reference.sim.system import System
from pubsub_spec.reference.tam.config import BASIC_SECTION, SECTION, TamConfig, config_of
from pubsub_spec.reference.tam.messages import (
    BASIC_NAMES,
    BasicMessage,
    TamNotify,
    TamPublish,
    TamSubscribe,
    TamTransfer,
    TamUnsubscribe,
    basic_size,
)
from pubsub_spec.reference.tam.tables import Table


@dataclass
class TamMetrics(Metrics):
    """Tam's own figures: hits and misses (§3.4; decision T13: pooled over the arrivals
    (peer, key, event) at peers holding subscriptions on that key), seen-list drops (§3.6),
    keys per subscription (§3.5), Scribe repairs (T12)."""

    hits: int = 0
    misses: int = 0
    duplicates_dropped: int = 0
    keys_per_sub: list[int] = field(default_factory=list)
    events_keys: int = 0

    @property
    def hit_rate(self) -> float:
        n = self.hits + self.misses
        return self.hits / n if n else 1.0


@dataclass
class SubRecord:
    sub: Subscription
    seq: int
    keys: tuple[int, ...]
    install: Installation  # its JOINs (Scribe) or TamSubscribes (basic scheme) in flight
    active: bool = True


@dataclass(frozen=True)
class Hop:
    """A Scribe message arriving at peer `dst`."""

    dst: int
    msg: ScribeMessage[Event]


@dataclass(frozen=True)
class Routed:
    """A basic-scheme message at peer `at`: routed on toward `key`, or for `at` if key is None."""

    at: int
    msg: BasicMessage
    key: int | None


Item = Hop | Routed

# Tam's state changes (conformance/OBSERVATIONS.md, "tam, tam-basic"); Scribe's are
# reference/overlay/scribe.py STATE_CHANGES.
REGISTER = "tam-register"  # a subscription registered on one of its index keys (subscriber)
UNREGISTER = "tam-unregister"  # ... and removed from it on unsubscribe
STORE = "tam-store"  # a subscription stored under a key at its home (basic scheme)
UNSTORE = "tam-unstore"  # ... and removed there (`reason`)
TAM_STATE_CHANGES: tuple[str, ...] = (REGISTER, UNREGISTER, STORE, UNSTORE)


def hex_key(key: int) -> str:
    """A key or Pastry id as observed: 40 lower-case hex digits (160 bits, T4)."""
    return f"{key:040x}"


class _TamBase(System[Item]):
    section = SECTION

    def __init__(
        self,
        schemas: Sequence[Schema],
        matching: MatchMode,
        config: TamConfig,
        seed: int,
        initial_nodes: Sequence[str],
    ) -> None:
        super().__init__(seed)
        if matching != "strict":  # T10: the scheme cannot support lenient matching
            raise ValueError("Tam's scheme supports strict matching only (decision T10)")
        self.config = config
        self.matching: MatchMode = matching
        self.metrics: TamMetrics = TamMetrics()
        self.latency = LatencyModel(seed, config.mean_rtt_ms)
        self.ring = PastryRing(config.id_bits, config.digit_bits, config.leaf_set_size)
        self.pid_of: dict[str, int] = {}
        self.name_of: dict[int, str] = {}
        self.tables = {s.name: Table(s, config) for s in schemas}
        self.subs: dict[str, SubRecord] = {}
        self.event_seq: dict[str, int] = {}
        self.published_at: dict[str, float] = {}
        for name in initial_nodes:
            self._add_peer(name)

    @classmethod
    def for_trace(cls, trace: Trace) -> Self:
        config = config_of(trace, cls.section)
        system = cls(
            trace.schemas,
            trace.matching,
            config,
            trace.seed,
            initial_node_names(trace.initial_nodes),
        )
        for i, op in enumerate(trace.ops):  # T9: an uncovered subscription is bad input
            if isinstance(op, Subscribe):
                system.tables[op.sub.schema].select(op.sub, config.index_policy, op_where(i, op))
        return system

    def _add_peer(self, name: str) -> int:
        pid = sha1_id(name)
        self.pid_of[name] = pid
        self.name_of[pid] = name
        self.latency.place(name)
        self.ring.add(pid)
        return pid

    def _account(self, src: int, dst: int, kind: str, size: int) -> float:
        """One overlay hop counted at its sender (T14); returns its latency."""
        self.metrics.sends[kind] += 1
        a, b = self.name_of[src], self.name_of[dst]
        self.metrics.hop(a, kind, size)
        return self.latency.one_way(a, b)

    def _observe_registration(self, sub: Subscription, kind: str) -> None:
        """Report the index keys a subscription registers on (`kind` REGISTER) or leaves
        (UNREGISTER), each with its index (Tam et al. §3.2, §3.5, §3.6)."""
        table = self.tables[sub.schema]
        done: set[int] = set()
        for ix in table.select(sub, self.config.index_policy):
            for k in table.subscription_keys(sub, ix):
                if k not in done:
                    done.add(k)
                    self.observe(
                        state(kind, sub.subscriber, sub=sub.id, key=hex_key(k), index=list(ix))
                    )

    def _keys_of(self, sub: Subscription) -> tuple[int, ...]:
        table = self.tables[sub.schema]
        keys: dict[int, None] = {}
        for ix in table.select(sub, self.config.index_policy):
            for k in table.subscription_keys(sub, ix):
                keys[k] = None
        self.metrics.keys_per_sub.append(len(keys))
        return tuple(keys)

    def _event_keys(self, event: Event) -> list[int]:
        """One key per applicable index (§3.2, §3.5)."""
        table = self.tables[event.schema]
        keys = list(
            dict.fromkeys(table.event_key(event, ix) for ix in table.applicable_to_event(event))
        )
        self.metrics.events_keys += len(keys)
        return keys

    def _eligible(self, sid: str, event: Event) -> Subscription | None:
        """The subscription if it is active and came before the publish (docs/design.md#active)."""
        rec = self.subs.get(sid)
        if rec is None or not rec.active or rec.seq >= self.event_seq[event.id]:
            return None
        if rec.sub.schema != event.schema:
            return None
        return rec.sub

    def _deliver(self, sid: str, event: Event) -> None:
        self.deliveries.append(Delivery(event.id, sid))
        self.metrics.delivery_latency_ms.append(self.engine.now - self.published_at[event.id])

    def _done(self, rec: SubRecord) -> None:
        """One JOIN absorbed or one TamSubscribe stored for the subscription (§3.2, §3.3)."""
        rec.install.arrived()
        self._settle(rec)

    def _settle(self, rec: SubRecord) -> None:
        rec.install.settle(self.engine.now, self.metrics.install_latency_ms)

    def installed(self, sub_id: str) -> bool:
        return self.subs[sub_id].install.installed

    def peer_count(self) -> int:
        return len(self.ring)

    def _gone(self, names: Sequence[str]) -> set[int]:
        """Peers leave or fail: their subscriptions end (oracle, D-CHURN)."""
        gone = {self.pid_of[n] for n in names}
        for rec in self.subs.values():
            if rec.active and self.pid_of[rec.sub.subscriber] in gone:
                rec.active = False
        for pid in sorted(gone):
            self.ring.remove(pid)
        return gone

    def _hit_line(self, where: str) -> str:
        m = self.metrics
        n = m.hits + m.misses
        return (
            f"hit rate: {m.hit_rate:.1%} ({m.hits} hits / {n} notifications received {where}; "
            f"misses are false positives filtered, §3.4)"
        )

    def _keys_line(self) -> str:
        k = self.metrics.keys_per_sub
        mean = sum(k) / len(k) if k else 0.0
        n_ev = max(1, len(self.event_seq))
        return (
            f"keys per subscription: mean {mean:.2f}, max {max(k, default=0)}; "
            f"keys per event: {self.metrics.events_keys / n_ev:.2f}; "
            f"policy {self.config.index_policy}"
        )


class TamSystem(_TamBase, ScribeHost[Event]):
    """Tam et al. over Scribe (§3.3)."""

    def __init__(
        self,
        schemas: Sequence[Schema],
        matching: MatchMode,
        config: TamConfig,
        seed: int,
        initial_nodes: Sequence[str],
        repair: bool = True,
        seen_list: bool = True,
    ) -> None:
        super().__init__(schemas, matching, config, seed, initial_nodes)
        self.scribe: Scribe[Event] = Scribe(self.ring, self, repair)
        self.seen_list = seen_list  # False only in a mutant
        # per (peer, key): the peer's subscriptions registered on the key (its group)
        self.registered: dict[tuple[int, int], set[str]] = defaultdict(set)
        self.waiting: dict[tuple[int, int], list[str]] = defaultdict(list)
        self.local: dict[int, set[str]] = defaultdict(set)
        self.seen: dict[int, dict[str, float]] = defaultdict(dict)
        self._event_bytes: dict[str, int] = {}

    # -- ScribeHost ------------------------------------------------------------------------
    def send(self, src: int, dst: int, msg: ScribeMessage[Event]) -> None:
        payload = 0
        if isinstance(msg, ScribePublish | ScribeMulticast):
            ev = msg.payload
            payload = self._event_bytes.get(ev.id) or self._event_bytes.setdefault(
                ev.id, event_size(ev)
            )
        size = message_size(msg, payload)
        latency = self._account(src, dst, message_name(msg), size)
        if self.observer is not None:
            self._observe_hop(src, dst, msg)
        self.engine.schedule(self.engine.now + latency, Hop(dst, msg))

    def count(self, src: int, dst: int, msg: ScribeMessage[Event]) -> None:
        self._account(src, dst, message_name(msg), message_size(msg, 0))
        if self.observer is not None:
            self._observe_hop(src, dst, msg, handover=True)

    def _observe_hop(
        self, src: int, dst: int, msg: ScribeMessage[Event], handover: bool = False
    ) -> None:
        a, b, key = self.name_of[src], self.name_of[dst], hex_key(msg.group)
        name = message_name(msg)
        if isinstance(msg, ScribePublish | ScribeMulticast):
            self.observe(sent(name, a, b, event=msg.payload.id, key=key))
        elif isinstance(msg, ScribeJoin):
            fields: dict[str, object] = {
                "key": key,
                "origin": self.name_of[msg.origin],
                "repair": msg.repair,
            }
            if handover:
                fields["handover"] = True
            self.observe(Observation(SEND, name, a, b, fields=fields))
        else:
            self.observe(sent(name, a, b, key=key))

    def tree_changed(
        self, change: str, pid: int, group: int, other: int | None = None, **fields: object
    ) -> None:
        """Scribe's state changes as observations (reference/overlay/scribe.py STATE_CHANGES)."""
        extra: dict[str, object] = {"key": hex_key(group), **fields}
        if other is not None:
            extra["parent" if change == PARENT else "child"] = self.name_of[other]
        self.observe(Observation(STATE, change, self.name_of[pid], fields=extra))

    def joined(self, pid: int, group: int) -> None:
        for sid in self.waiting.pop((pid, group), []):
            self._done(self.subs[sid])

    def deliver(self, pid: int, group: int, payload: Event) -> None:
        """A publication reaches a member: exact matching at the leaves of the tree (§3.4,
        §5 "exact matching ... done at the leaves of the multicast notification trees")."""
        event = payload
        on_key = [
            s
            for sid in sorted(self.registered.get((pid, group), ()))
            if (s := self._eligible(sid, event)) is not None
        ]
        if on_key:  # T13: an arrival at a peer holding subscriptions on the key
            if any(matches(s, event, self.matching) for s in on_key):
                self.metrics.hits += 1
            else:
                self.metrics.misses += 1
        if self.config.index_policy != "all":
            # T8: a subscription is registered on exactly one key the event is sent to
            for s in on_key:
                if matches(s, event, self.matching):
                    self._deliver(s.id, event)
            return
        if self.seen_list:
            seen = self.seen[pid]
            at = seen.get(event.id)
            deadline = self.config.seen_deadline_ms
            if at is not None and (deadline is None or self.engine.now - at <= deadline):
                self.metrics.duplicates_dropped += 1  # §3.6: discard the duplicate
                return
            seen[event.id] = self.engine.now
            candidates = sorted(self.local.get(pid, ()))  # T8: all the peer's subscriptions
        else:
            candidates = sorted(self.registered.get((pid, group), ()))
        for sid in candidates:
            s = self._eligible(sid, event)
            if s is not None and matches(s, event, self.matching):
                self._deliver(sid, event)

    # -- ops -------------------------------------------------------------------------------
    def subscribe(self, sub: Subscription, seq: int) -> None:
        pid = self.pid_of[sub.subscriber]
        keys = self._keys_of(sub)
        to_join = [k for k in keys if not self.registered.get((pid, k))]
        rec = SubRecord(sub, seq, keys, Installation(self.engine.now, len(to_join)))
        self.subs[sub.id] = rec
        self.local[pid].add(sub.id)
        for k in keys:
            self.registered[(pid, k)].add(sub.id)
        for k in to_join:
            self.waiting[(pid, k)].append(sub.id)
        if self.observer is not None:
            self._observe_registration(sub, REGISTER)
        for k in to_join:
            self.scribe.join(pid, k)  # §3.3: JOIN routed toward the key
        self._settle(rec)  # every key already joined (or absorbed at once): installed now

    def unsubscribe(self, sub_id: str) -> None:
        rec = self.subs[sub_id]
        rec.active = False
        pid = self.pid_of[rec.sub.subscriber]
        if self.observer is not None:
            self._observe_registration(rec.sub, UNREGISTER)
        self.local[pid].discard(sub_id)
        for k in rec.keys:
            reg = self.registered[(pid, k)]
            reg.discard(sub_id)
            if not reg:
                del self.registered[(pid, k)]
                self.scribe.leave(pid, k)  # Scribe §2.2.2: LEAVE and pruning

    def publish(self, event: Event, seq: int) -> None:
        pid = self.pid_of[event.publisher]
        self.event_seq[event.id] = seq
        self.published_at[event.id] = self.engine.now
        for k in self._event_keys(event):
            self.scribe.publish(pid, k, event)  # §3.3: to the root, then down the tree

    def join(self, name: str) -> None:
        pid = self._add_peer(name)
        self.scribe.peer_joined(pid)

    def leave(self, name: str) -> None:
        self._remove([name])

    def fail(self, names: Sequence[str]) -> None:
        self._remove(list(names))

    def _remove(self, names: list[str]) -> None:
        gone = self._gone(names)
        for pk in [pk for pk in self.registered if pk[0] in gone]:
            del self.registered[pk]
        for pid in gone:
            self.local.pop(pid, None)
        self.scribe.peers_removed(gone)

    def _dispatch(self, item: Item) -> str:
        assert isinstance(item, Hop)
        self.scribe.receive(item.dst, item.msg)
        return f"{message_name(item.msg)} {self.name_of.get(item.dst, '?')} {item.msg.group:x}"

    def describe(self) -> str:
        return f"Tam et al. over Scribe, index policy {self.config.index_policy}"

    def figures(self) -> list[str]:
        groups = self.scribe.groups
        sizes = [len(g) for g in groups.values()]
        mean = sum(sizes) / len(sizes) if sizes else 0.0
        return [
            self._hit_line("at members"),
            self._keys_line(),
            f"scribe: {len(groups)} groups, mean tree {mean:.1f} peers, max {max(sizes, default=0)}"
            f"; {self.scribe.rebuilds} rebuilds, {self.scribe.handovers} root handovers; "
            f"seen-list drops {self.metrics.duplicates_dropped}",
        ]


class TamBasicSystem(_TamBase):
    """The basic home-node scheme (§3.2): no multicast tree."""

    section = BASIC_SECTION

    def __init__(
        self,
        schemas: Sequence[Schema],
        matching: MatchMode,
        config: TamConfig,
        seed: int,
        initial_nodes: Sequence[str],
    ) -> None:
        super().__init__(schemas, matching, config, seed, initial_nodes)
        # per home peer, per key: the subscriptions stored there (§3.2)
        self.store: dict[int, dict[int, dict[str, Subscription]]] = defaultdict(dict)
        self.seen: dict[int, set[tuple[str, str]]] = defaultdict(set)

    def _route(self, src: int, key: int | None, msg: BasicMessage, dst: int = 0) -> None:
        """Hop by hop toward `key` (Pastry); with key None, one hop to `dst` (T14)."""
        if key is None:
            if dst == src:
                self._handle(src, msg)
                return
            latency = self._account(src, dst, BASIC_NAMES[type(msg)], basic_size(msg))
            self.engine.schedule(self.engine.now + latency, Routed(dst, msg, None))
            return
        nxt = self.ring.next_hop(src, key)
        if nxt == src:
            self._handle(src, msg)
            return
        latency = self._account(src, nxt, BASIC_NAMES[type(msg)], basic_size(msg))
        if self.observer is not None:
            self._observe_routed(src, nxt, key, msg)
        self.engine.schedule(self.engine.now + latency, Routed(nxt, msg, key))

    def _observe_routed(self, src: int, dst: int, key: int, msg: BasicMessage) -> None:
        """One hop of a message routed toward `key` (§3.2)."""
        a, b, name = self.name_of[src], self.name_of[dst], BASIC_NAMES[type(msg)]
        if isinstance(msg, TamSubscribe):
            self.observe(sent(name, a, b, sub=msg.sub.id, key=hex_key(key)))
        elif isinstance(msg, TamUnsubscribe):
            self.observe(sent(name, a, b, sub=msg.sub_id, key=hex_key(key)))
        elif isinstance(msg, TamPublish):
            self.observe(sent(name, a, b, event=msg.event.id, key=hex_key(key)))

    def _dispatch(self, item: Item) -> str:
        assert isinstance(item, Routed)
        if item.at not in self.ring:
            return f"drop {BASIC_NAMES[type(item.msg)]}"
        self._route(item.at, item.key, item.msg, item.at)
        return f"{BASIC_NAMES[type(item.msg)]} {self.name_of[item.at]}"

    def _handle(self, pid: int, msg: BasicMessage) -> None:
        if isinstance(msg, TamSubscribe):
            self.store[pid].setdefault(msg.key, {})[msg.sub.id] = msg.sub  # §3.2: stored
            if self.observer is not None:
                self.observe(state(STORE, self.name_of[pid], sub=msg.sub.id, key=hex_key(msg.key)))
            self._done(self.subs[msg.sub.id])
        elif isinstance(msg, TamUnsubscribe):
            at = self.store[pid].get(msg.key, {})
            if self.observer is not None and msg.sub_id in at:
                self.observe(
                    state(
                        UNSTORE,
                        self.name_of[pid],
                        sub=msg.sub_id,
                        key=hex_key(msg.key),
                        reason="unsubscribe",
                    )
                )
            at.pop(msg.sub_id, None)
            if not at:
                self.store[pid].pop(msg.key, None)
        elif isinstance(msg, TamPublish):
            self._match_at_home(pid, msg.key, msg.event)
        elif isinstance(msg, TamNotify):
            for sid in msg.sub_ids:
                if self.config.index_policy == "all":
                    if (msg.event.id, sid) in self.seen[pid]:  # §3.6 seen-list
                        self.metrics.duplicates_dropped += 1
                        continue
                    self.seen[pid].add((msg.event.id, sid))
                self._deliver(sid, msg.event)

    def _match_at_home(self, pid: int, key: int, event: Event) -> None:
        """§3.2: the home completes the matching with a centralised matcher and notifies the
        fully matching subscribers (one message per subscriber peer)."""
        stored = [
            s
            for sid in sorted(self.store[pid].get(key, {}))
            if (s := self._eligible(sid, event)) is not None
        ]
        if not stored:
            return
        hit = [s for s in stored if matches(s, event, self.matching)]
        if hit:
            self.metrics.hits += 1
        else:
            self.metrics.misses += 1
        by_peer: dict[int, list[str]] = defaultdict(list)
        for s in hit:
            by_peer[self.pid_of[s.subscriber]].append(s.id)
        for dst in sorted(by_peer):
            if self.observer is not None and dst != pid:  # one hop to the subscriber
                self.observe(
                    sent(
                        BASIC_NAMES[TamNotify],
                        self.name_of[pid],
                        self.name_of[dst],
                        event=event.id,
                        key=hex_key(key),
                        subs=list(by_peer[dst]),
                    )
                )
            self._route(pid, None, TamNotify(event, tuple(by_peer[dst])), dst)

    def subscribe(self, sub: Subscription, seq: int) -> None:
        pid = self.pid_of[sub.subscriber]
        keys = self._keys_of(sub)
        rec = SubRecord(sub, seq, keys, Installation(self.engine.now, len(keys)))
        self.subs[sub.id] = rec
        if self.observer is not None:
            self._observe_registration(sub, REGISTER)
        for k in keys:
            self._route(pid, k, TamSubscribe(k, sub, seq))
        self._settle(rec)  # no key, or every key's home is the subscriber: installed now

    def unsubscribe(self, sub_id: str) -> None:
        rec = self.subs[sub_id]
        rec.active = False
        pid = self.pid_of[rec.sub.subscriber]
        if self.observer is not None:
            self._observe_registration(rec.sub, UNREGISTER)
        for k in rec.keys:
            self._route(pid, k, TamUnsubscribe(k, sub_id))

    def publish(self, event: Event, seq: int) -> None:
        pid = self.pid_of[event.publisher]
        self.event_seq[event.id] = seq
        self.published_at[event.id] = self.engine.now
        for k in self._event_keys(event):
            self._route(pid, k, TamPublish(k, event))

    def _rehome(self) -> None:
        """Hand stored subscriptions whose key has a new home to it (Pastry key handover;
        T12), one TamTransfer per (old home, new home) pair, applied at once."""
        for old in sorted(self.store):
            moves: dict[int, list[tuple[int, dict[str, Subscription]]]] = defaultdict(list)
            for key, subs in list(self.store[old].items()):
                home = self.ring.closest(key)
                if home != old:
                    moves[home].append((key, subs))
                    del self.store[old][key]
            for home in sorted(moves):
                payload = tuple(s for _, subs in moves[home] for s in subs.values())
                kind = BASIC_NAMES[TamTransfer]
                self._account(old, home, kind, basic_size(TamTransfer(payload)))
                if self.observer is not None:
                    self._observe_transfer(old, home, moves[home])
                for key, subs in moves[home]:
                    self.store[home].setdefault(key, {}).update(subs)

    def _observe_transfer(
        self, old: int, home: int, moved: list[tuple[int, dict[str, Subscription]]]
    ) -> None:
        """A key handover (T12): the TamTransfer hop, then each subscription moved."""
        a, b = self.name_of[old], self.name_of[home]
        keys = [hex_key(k) for k, _ in moved]
        subs = [sid for _, at in moved for sid in at]
        self.observe(sent(BASIC_NAMES[TamTransfer], a, b, keys=keys, subs=subs))
        for key, at in moved:
            for sid in at:
                self.observe(state(UNSTORE, a, sub=sid, key=hex_key(key), reason="handover"))
                self.observe(state(STORE, b, sub=sid, key=hex_key(key), transfer=True))

    def join(self, name: str) -> None:
        self._add_peer(name)
        self._rehome()

    def leave(self, name: str) -> None:
        """Graceful leave: the peer hands what it stores to the keys' new homes (T12)."""
        self._gone([name])
        self._purge()
        self._rehome()
        self.store.pop(self.pid_of[name], None)

    def fail(self, names: Sequence[str]) -> None:
        """Crash: what the failed homes stored is lost; the subscribers re-register the keys
        whose home has gone (T12), routed and counted as TamSubscribe."""
        gone = self._gone(names)
        lost: set[tuple[str, int]] = set()
        for pid in gone:
            for key, subs in self.store.pop(pid, {}).items():
                lost.update((sid, key) for sid in subs)
        self._purge()
        for sid, key in sorted(lost):
            rec = self.subs[sid]
            if rec.active:
                rec.install.expect()  # T12: re-registered and waited for like an installation
                src = self.pid_of[rec.sub.subscriber]
                self._route(src, key, TamSubscribe(key, rec.sub, rec.seq))

    def _purge(self) -> None:
        """Subscriptions of gone subscribers are dropped from every home."""
        for home, at in self.store.items():
            for key in list(at):
                for sid in [s for s in at[key] if not self.subs[s].active]:
                    del at[key][sid]
                    if self.observer is not None:
                        self.observe(
                            state(
                                UNSTORE,
                                self.name_of[home],
                                sub=sid,
                                key=hex_key(key),
                                reason="subscriber-gone",
                            )
                        )
                if not at[key]:
                    del at[key]

    def describe(self) -> str:
        return f"Tam et al., basic home-node scheme, index policy {self.config.index_policy}"

    def figures(self) -> list[str]:
        loads = [sum(len(v) for v in at.values()) for at in self.store.values()]
        return [
            self._hit_line("at home nodes"),
            self._keys_line(),
            f"home nodes: {sum(1 for x in loads if x)} hold subscriptions, max load "
            f"{max(loads, default=0)}",
        ]
