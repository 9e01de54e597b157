"""OctopiA behind the common System interface (reference/sim/system.py): brokers of a SCOT,
clients attached to them, scotAFP (§V), subscription broadcast with subgrouping and CIB_SET
(§VI), and SNR or IDR notification routing (§VII).

Trace nodes are *clients* (A18): each attaches to one broker (config `attach`, else a seeded
choice); a client's leave or failure ends its subscriptions and advertisements. Brokers never
fail (broker churn is the paper's future work). A subscription is installed once its broadcast
has reached every broker of its cluster and every CIB_SET it caused has reached its host.
Notifications wait in per-link FIFO output queues (O-QUEUE); control messages do not.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pubsub_spec.reference.common.matching import matches
from pubsub_spec.reference.common.model import Event, MatchMode, Subscription
from pubsub_spec.reference.common.ops import Advertise, Op, Trace, Unadvertise, has_advertisements
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.octopia.advertisements import (
    Advertisement,
    conforms,
    implicit_advertisements,
    overlaps,
)
from pubsub_spec.reference.octopia.civ import bit, bits
from pubsub_spec.reference.octopia.config import OctopiaConfig, config_of
from pubsub_spec.reference.octopia.messages import (
    TYPE_OF,
    Adv,
    CibSet,
    Message,
    Notification,
    Sub,
    Unadv,
    Unsub,
    size_of,
)
from pubsub_spec.reference.octopia.routing import (
    FREE,
    Copy,
    IdrDecision,
    OutputQueue,
    idr_copies,
    snr_copies,
)
from pubsub_spec.reference.octopia.scot import Broker, Scot, broker_name
from pubsub_spec.reference.octopia.subscriptions import SrtEntry, cib_set_targets
from pubsub_spec.reference.sim.installation import Installation
from pubsub_spec.reference.sim.latency import LatencyModel
from pubsub_spec.reference.sim.metrics import Metrics
from pubsub_spec.reference.sim.observe import Observer, send, state
from pubsub_spec.reference.sim.system import System

# A safety net for mutants only: a correct run receives each notification at most once per
# broker (I3); further receptions are dropped and counted, so a looping mutant terminates.
LOOP_GUARD = 3


@dataclass
class OctopiaMetrics(Metrics):
    duplicates_discarded: int = 0  # TID: advertisement copies dropped as duplicates (§II)
    civ_n: int = 0  # CIV-N copies sent (§VII-B)
    idr_cases: Counter[str] = field(default_factory=Counter)
    loop_drops: int = 0
    max_receptions: int = 0  # per (event, broker); 1 in a correct run (I3)
    filtered_old: int = 0  # copies reaching a subscription installed after the publish


@dataclass(frozen=True)
class Arrival:
    src: Broker | None
    dst: Broker
    msg: Message
    processed: bool = False  # O-PROC: the broker has taken it off its input queue


@dataclass
class SubState:
    sub: Subscription
    seq: int
    host: Broker
    install: Installation  # its broadcast, CIB_SETs (TID: reverse-path forwards) in flight
    active: bool = True


@dataclass
class PrtEntry:
    """A PRT entry (sub, lastHop); lastHop None: the subscriber is a local client."""

    sub: Subscription
    last_hop: Broker | None


class BrokerNetwork(System[Arrival]):
    """What OctopiA and TID share: the SCOT brokers, clients, queues, latencies, delivery."""

    message_kinds: tuple[str, ...] = ()

    def __init__(self, trace: Trace, config: OctopiaConfig) -> None:
        self._attached_seen: set[str] = set()  # clients whose `attach` has been observed
        self._hops: dict[tuple[str, Broker], int] = {}  # (event, broker) -> hops (observed runs)
        self._routing_event: str | None = None  # the event `copies` decides for (observed runs)
        super().__init__(trace.seed)
        self.config = config
        self.matching: MatchMode = trace.matching
        self.scot = Scot(config.factor(), config.m)
        self.metrics: OctopiaMetrics = OctopiaMetrics()
        self.latency = LatencyModel(trace.seed, config.mean_rtt_ms)
        for b in self.scot.brokers:
            self.latency.place(broker_name(b))
        self.queues: dict[tuple[Broker, Broker], OutputQueue] = {}
        self._attach = config.attach_map()
        self.subs: dict[str, SubState] = {}
        self.adverts: dict[str, tuple[Advertisement, Broker]] = {}
        self.event_seq: dict[str, int] = {}
        self.published_at: dict[str, float] = {}
        self.receptions: Counter[tuple[str, Broker]] = Counter()
        self._overload_rng = random.Random(f"{trace.seed}:overload")
        self._forced = {((x, i), (y, j)) for x, i, y, j in config.forced_links}
        # O-PROC: each broker a FIFO server of its arriving IMs (off when both times are 0)
        self._processing = config.processing_ms > 0 or config.matching_ms_per_entry > 0
        self.busy_until: dict[Broker, float] = {}
        self.processing_wait_ms: dict[Broker, float] = {}  # time IMs waited, per broker
        self.init_tables()
        # O-IMPLICIT only for traces without advertisement ops (O-EXPLICIT: a trace that has
        # them declares every advertisement its publishes conform to, FORMAT.md).
        if config.implicit_advertisements and not has_advertisements(trace):
            for adv in implicit_advertisements(trace):  # decision O-IMPLICIT
                self.advertise(adv.publisher, adv)
            self.run_to_quiescence()

    def init_tables(self) -> None:
        """Create the per-broker SRT and PRT (before the implicit advertisements)."""

    # -- protocol observations (conformance/OBSERVATIONS.md, "octopia-snr, octopia-idr, tid") --
    # Report sites test `self._observer is not None` first: no observer, no cost and the same
    # event log. Setting an observer reports the state built before it was set (the implicit
    # advertisements of O-IMPLICIT, issued in __init__) as `state` observations.
    _observer: Observer | None = None

    @property
    def observer(self) -> Observer | None:
        return self._observer

    @observer.setter
    def observer(self, obs: Observer | None) -> None:
        self._observer = obs
        if obs is not None:
            self.report_tables()

    def report_tables(self) -> None:
        """The state built so far, as `state` observations (`initial` true): the attached
        clients here, the SRT and PRT entries in the subclasses."""
        for client, host in sorted(self._attach.items()):
            if client not in self._attached_seen:
                self._attached_seen.add(client)
                self.observe(state("attach", broker_name(host), client=client, initial=True))

    def observe_send(self, src: Broker, dst: Broker, msg: Message) -> None:
        """The `send` observation of one IM (called only with an observer set)."""
        link = "alink" if self.scot.is_alink(src, dst) else "ilink"
        a, b, kind = broker_name(src), broker_name(dst), TYPE_OF[type(msg)]
        t = None if isinstance(msg, CibSet) else msg.tid
        tid = {} if t is None else {"tid": t}
        if isinstance(msg, Adv):
            host = broker_name(msg.host)
            obs = send(kind, a, b, adv=msg.adv.id, host=host, cluster=msg.host[1], link=link, **tid)
        elif isinstance(msg, Unadv):
            obs = send(kind, a, b, adv=msg.adv_id, link=link, **tid)
        elif isinstance(msg, Sub):
            obs = send(kind, a, b, sub=msg.sub.id, link=link, **tid)
        elif isinstance(msg, Unsub):
            obs = send(kind, a, b, sub=msg.sub_id, link=link, **tid)
        elif isinstance(msg, CibSet):
            sid = None if msg.sub is None else msg.sub.id
            reason = "afp" if msg.sub is None else "sbp"
            obs = send(kind, a, b, sub=sid, adv=msg.adv_id, cluster=msg.from_ci, reason=reason)
        else:
            hops = self._hops.get((msg.event.id, src), 0) + 1
            self._hops[(msg.event.id, dst)] = hops
            obs = send(
                kind,
                a,
                b,
                event=msg.event.id,
                civ=list(bits(msg.civ)),
                link=link,
                depth=hops,
                **tid,
            )
        self.observe(obs)

    # -- clients (A18) ---------------------------------------------------------------------
    def host_of(self, client: str) -> Broker:
        if client not in self._attach:
            rng = random.Random(f"{self.seed}:attach:{client}")  # §VIII: random placement
            self._attach[client] = rng.choice(self.scot.brokers)
        host = self._attach[client]
        if self._observer is not None and client not in self._attached_seen:
            self._attached_seen.add(client)
            self.observe(state("attach", broker_name(host), client=client))
        return host

    def join(self, name: str) -> None:
        self.host_of(name)  # a client attaches; brokers are static

    def leave(self, name: str) -> None:
        """A client's leave ends its subscriptions and advertisements (A18)."""
        for sid, st in sorted(self.subs.items()):
            if st.active and st.sub.subscriber == name:
                self.unsubscribe(sid)
        for aid, (adv, _) in sorted(self.adverts.items()):
            if adv.publisher == name:
                self.unadvertise(aid)

    def fail(self, names: Sequence[str]) -> None:
        """A client's failure is detected by its broker and treated as a leave (A18)."""
        for n in names:
            self.leave(n)

    def peer_count(self) -> int:
        return len(self.scot.brokers)

    def installed(self, sub_id: str) -> bool:
        return self.subs[sub_id].install.installed

    def installed_now(self, st: SubState) -> None:
        """O-INSTALL (docs/octopia.md): a subscription is installed when the last message it
        caused (its cluster broadcast, its CIB_SETs; with TIDs, the forwards along reverse
        paths) has arrived: its installation latency is recorded then, once. (It was recorded
        as 0 ms at the subscribe op, a bug that mutation testing found, docs/mutation.md.)"""
        st.install.settle(self.engine.now, self.metrics.install_latency_ms)

    def apply_other(self, op: Op) -> None:
        """The trace's advertisement ops (decision O-EXPLICIT): `advertise` issues the
        advertisement at its publisher's broker (scotAFP §V, TID flooding [20]); `unadvertise`
        withdraws it. The Driver runs the system to quiescence before and after."""
        if isinstance(op, Advertise):
            adv = Advertisement(op.id, op.publisher, op.schema, op.predicates)
            self.advertise(op.publisher, adv)
        elif isinstance(op, Unadvertise):
            self.unadvertise(op.id)
        else:
            super().apply_other(op)

    # -- advertisements (the explicit API the trace ops call) ------------------------------
    def advertise(self, publisher: str, adv: Advertisement) -> None:
        if adv.publisher != publisher:
            raise ValueError(f"advertisement {adv.id} is not {publisher}'s")
        if adv.id in self.adverts:
            raise ValueError(f"duplicate advertisement id {adv.id!r}")
        host = self.host_of(publisher)
        self.adverts[adv.id] = (adv, host)
        self._advertise(host, adv)

    def unadvertise(self, adv_id: str) -> None:
        _, host = self.adverts.pop(adv_id)
        self._unadvertise(host, adv_id)

    def _advertise(self, host: Broker, adv: Advertisement) -> None:
        raise NotImplementedError

    def _unadvertise(self, host: Broker, adv_id: str) -> None:
        raise NotImplementedError

    def conforming(self, event: Event) -> list[Advertisement]:
        """The publisher's active advertisements the event conforms to (A7), by id."""
        out = [a for a, _ in self.adverts.values() if conforms(event, a)]
        if not out:
            raise ValueError(f"event {event.id} conforms to no advertisement of {event.publisher}")
        return sorted(out, key=lambda a: a.id)

    # -- sending ---------------------------------------------------------------------------
    def send(self, src: Broker, dst: Broker, msg: Message) -> None:
        if dst not in self.scot.neighbours(src):
            raise AssertionError(f"{broker_name(src)} -> {broker_name(dst)} is not a link")
        if self._observer is not None:
            self.observe_send(src, dst, msg)
        kind = TYPE_OF[type(msg)]
        self.metrics.sends[kind] += 1
        self.metrics.hop(broker_name(src), kind, size_of(msg, self.scot.m))
        at = self.engine.now
        if isinstance(msg, Notification):  # O-QUEUE: notifications wait in output queues
            at = self.queue(src, dst).enqueue(at)
        at += self.latency.one_way(broker_name(src), broker_name(dst))
        self.engine.schedule(at, Arrival(src, dst, msg))

    def queue(self, src: Broker, dst: Broker) -> OutputQueue:
        q = self.queues.get((src, dst))
        if q is None:
            q = self.queues[(src, dst)] = OutputQueue(self.config.link_service_ms)
        return q

    def overloaded(self, src: Broker, dst: Broker) -> bool:
        """Eq. 10 on the LST row, or forced (config) for testing."""
        if (src, dst) in self._forced:
            return True
        if self.config.forced_overload > 0 and (
            self._overload_rng.random() < self.config.forced_overload
        ):
            return True
        st = self.queue(src, dst).status(self.engine.now, self.config.window_ms)
        return st.overloaded(self.config.theta, self.config.overload_rule)

    def rank(self, src: Broker, dst: Broker) -> tuple[float, float]:
        q = self.queues.get((src, dst))
        st = FREE if q is None else q.status(self.engine.now, self.config.window_ms)
        return st.rank()

    def _dispatch(self, item: Arrival) -> str:
        src = "-" if item.src is None else broker_name(item.src)
        if self._processing and not item.processed:
            # O-PROC: wait for the broker, then processing plus matching time (§VIII)
            b, now = item.dst, self.engine.now
            start = max(now, self.busy_until.get(b, 0.0))
            entries = self.match_entries(b, item.msg)
            done = start + self.config.processing_ms + self.config.matching_ms_per_entry * entries
            self.busy_until[b] = done
            self.processing_wait_ms[b] = self.processing_wait_ms.get(b, 0.0) + start - now
            self.engine.schedule(done, Arrival(item.src, b, item.msg, processed=True))
            return f"queued {TYPE_OF[type(item.msg)]} {src}>{broker_name(b)}"
        self._handle(item.src, item.dst, item.msg)
        return f"{TYPE_OF[type(item.msg)]} {src}>{broker_name(item.dst)}"

    def match_entries(self, b: Broker, msg: Message) -> int:
        """O-PROC: the entries of the table `msg` is matched against at broker `b`."""
        return 0

    def _handle(self, src: Broker | None, b: Broker, msg: Message) -> None:
        raise NotImplementedError

    # -- publication: reception and delivery -----------------------------------------------
    def receive(self, event: Event, b: Broker) -> bool:
        """Count a reception (I3); False when the loop guard drops it."""
        key = (event.id, b)
        self.receptions[key] += 1
        n = self.receptions[key]
        self.metrics.max_receptions = max(self.metrics.max_receptions, n)
        if n > LOOP_GUARD:
            self.metrics.loop_drops += 1
            return False
        return True

    def deliver(self, sub: Subscription, event: Event) -> None:
        """The subscriber's host hands the notification to its client (§I-II)."""
        st = self.subs.get(sub.id)
        if st is None or not st.active or not matches(sub, event, self.matching):
            return
        if st.seq >= self.event_seq[event.id]:
            self.metrics.filtered_old += 1  # subscribed after the publish: not active for it
            return
        self.deliveries.append(Delivery(event.id, sub.id))
        self.metrics.delivery_latency_ms.append(self.engine.now - self.published_at[event.id])
        if self._observer is not None:  # the host hands the notification to its client (§II)
            host = broker_name(st.host)
            self.observe(state("deliver", host, event=event.id, sub=sub.id, client=sub.subscriber))

    def note_publish(self, event: Event, seq: int) -> None:
        self.event_seq[event.id] = seq
        self.published_at[event.id] = self.engine.now

    def srt_sizes(self) -> list[int]:
        raise NotImplementedError

    def prt_sizes(self) -> list[int]:
        raise NotImplementedError

    def figures(self) -> list[str]:
        m = self.metrics
        srt, prt = self.srt_sizes(), self.prt_sizes()
        n = max(1, len(srt))
        ims = ", ".join(f"{k} {m.messages[k]}" for k in self.message_kinds)
        return [
            f"IMs: {ims}",
            f"SRT entries per broker {sum(srt) / n:.2f}, PRT entries per broker {sum(prt) / n:.2f}",
            f"max receptions per (event, broker) {m.max_receptions}; CIV-N {m.civ_n}; "
            f"IDR cases {dict(sorted(m.idr_cases.items()))}; duplicates discarded "
            f"{m.duplicates_discarded}",
        ]


class OctopiaSystem(BrokerNetwork):
    """OctopiA with SNR (`routing="snr"`) or IDR (`routing="idr"`) routing."""

    message_kinds = (
        "Advertisement",
        "Unadvertisement",
        "Subscription",
        "Unsubscription",
        "CIB_SET",
        "Notification",
    )

    def __init__(self, trace: Trace, config: OctopiaConfig, routing: str) -> None:
        if routing not in ("snr", "idr"):
            raise ValueError(f"unknown routing {routing!r}")
        self.routing = routing
        self.srt: dict[Broker, dict[str, SrtEntry]] = {}
        self.prt: dict[Broker, dict[str, PrtEntry]] = {}
        super().__init__(trace, config)

    def init_tables(self) -> None:
        self.srt = {b: {} for b in self.scot.brokers}
        self.prt = {b: {} for b in self.scot.brokers}

    @classmethod
    def for_trace(cls, trace: Trace, section: str, routing: str) -> OctopiaSystem:
        return cls(trace, config_of(trace, section), routing)

    def describe(self) -> str:
        return (
            f"OctopiA {self.routing.upper()} on SCOT |V_A|={len(self.scot.factor.vertices)} "
            f"x K{self.scot.m} ({len(self.scot.brokers)} brokers)"
        )

    def srt_sizes(self) -> list[int]:
        return [len(self.srt[b]) for b in self.scot.brokers]

    def prt_sizes(self) -> list[int]:
        return [len(self.prt[b]) for b in self.scot.brokers]

    def match_entries(self, b: Broker, msg: Message) -> int:
        # O-PROC: a subscription or CIB_SET is matched against the SRT (§VI), an
        # advertisement (the SCB check, §V) and a notification (§VII) against the PRT.
        if isinstance(msg, Sub | CibSet):
            return len(self.srt[b])
        if isinstance(msg, Adv | Notification):
            return len(self.prt[b])
        return 0

    def observe_srt(self, b: Broker, e: SrtEntry, initial: bool = False) -> None:
        """An SRT entry stored (§V, A4): host context (last_hop null) or secondary context."""
        last = None if e.last_hop is None else broker_name(e.last_hop)
        host = broker_name(b) if e.last_hop is None else last
        extra: dict[str, Any] = {"initial": True} if initial else {}
        self.observe(
            state(
                "srt-add",
                broker_name(b),
                adv=e.adv.id,
                host=host,
                cluster=e.host_ci,
                last_hop=last,
                scb=e.scb,
                **extra,
            )
        )

    def report_tables(self) -> None:
        super().report_tables()
        for b in self.scot.brokers:
            for _, e in sorted(self.srt[b].items()):
                self.observe_srt(b, e, initial=True)
                for j in bits(e.stc_mask):
                    self.observe(
                        state("cib-set", broker_name(b), adv=e.adv.id, cluster=j, initial=True)
                    )
            for sid, p in sorted(self.prt[b].items()):
                last = None if p.last_hop is None else broker_name(p.last_hop)
                self.observe(state("prt-add", broker_name(b), sub=sid, last_hop=last, initial=True))

    def _handle(self, src: Broker | None, b: Broker, msg: Message) -> None:
        if isinstance(msg, Adv):
            self.on_adv(src, b, msg)
        elif isinstance(msg, Unadv):
            gone = self.srt[b].pop(msg.adv_id, None)
            if self._observer is not None and gone is not None:
                self.observe(state("srt-remove", broker_name(b), adv=msg.adv_id))
        elif isinstance(msg, Sub):
            st = self.subs[msg.sub.id]
            st.install.arrived()
            self.receive_sub(b, msg.sub, src)
            self.installed_now(st)
        elif isinstance(msg, Unsub):
            self.receive_unsub(b, msg.sub_id, src)
        elif isinstance(msg, CibSet):
            self.on_cib_set(b, msg)
        else:
            self.route(b, msg.event, src, msg.civ)

    # -- scotAFP (§V; Algorithm 1 is cut off, rebuilt from the prose) ----------------------
    def _advertise(self, host: Broker, adv: Advertisement) -> None:
        # §V step 1: CIV in the advertisement context, host CIB ON, saved with lastHop P.
        self.srt[host][adv.id] = SrtEntry(adv, host[1], None)
        if self._observer is not None:
            self.observe_srt(host, self.srt[host][adv.id])
        for _, nb in sorted(self.scot.secondary_neighbours(host).items()):
            self.send(host, nb, Adv(adv, host))  # tree of depth 1, region R_x only

    def on_adv(self, src: Broker | None, b: Broker, msg: Adv) -> None:
        # §V step 2: SCB ON iff a subscription in this broker's PRT overlaps (A7).
        scb = self.afp_prt_check(b, msg.adv)
        self.srt[b][msg.adv.id] = SrtEntry(msg.adv, msg.host[1], msg.host, scb=scb)
        if self._observer is not None:
            self.observe_srt(b, self.srt[b][msg.adv.id])
        if scb:  # §V step 3: one message back; the host sets CIB b[1]
            self.send(b, msg.host, CibSet(msg.adv.id, b[1]))

    def afp_prt_check(self, b: Broker, adv: Advertisement) -> bool:
        return any(overlaps(adv, e.sub) for e in self.prt[b].values())

    def _unadvertise(self, host: Broker, adv_id: str) -> None:
        gone = self.srt[host].pop(adv_id, None)
        if self._observer is not None and gone is not None:
            self.observe(state("srt-remove", broker_name(host), adv=adv_id))
        for _, nb in sorted(self.scot.secondary_neighbours(host).items()):
            self.send(host, nb, Unadv(adv_id))

    def on_cib_set(self, b: Broker, msg: CibSet) -> None:
        if msg.sub is not None:
            st = self.subs[msg.sub.id]
            st.install.arrived()
            self.installed_now(st)
        e = self.srt[b].get(msg.adv_id)
        if e is not None and e.last_hop is None:
            j = self.cib_index(msg.from_ci)
            e.stc_mask |= bit(j)  # §VI: CIB of the sender's cluster
            if self._observer is not None:
                self.observe(state("cib-set", broker_name(b), adv=msg.adv_id, cluster=j))

    def cib_index(self, from_ci: int) -> int:
        return from_ci

    # -- subscription broadcast (§VI) ------------------------------------------------------
    def subscribe(self, sub: Subscription, seq: int) -> None:
        host = self.host_of(sub.subscriber)
        st = self.subs[sub.id] = SubState(sub, seq, host, Installation(self.engine.now))
        self.receive_sub(host, sub, None)
        self.installed_now(st)  # a one-broker cluster: installed at once

    def receive_sub(self, b: Broker, sub: Subscription, src: Broker | None) -> None:
        self.prt[b][sub.id] = PrtEntry(sub, src)  # §VI (i): save (s, lastHop)
        if self._observer is not None:
            last = None if src is None else broker_name(src)
            self.observe(state("prt-add", broker_name(b), sub=sub.id, last_hop=last))
        st = self.subs[sub.id]
        for e in self.cib_set_targets(b, sub):  # §VI (ii): CIB_SET where the SCB is OFF
            e.scb = True
            assert e.last_hop is not None
            if self._observer is not None:
                self.observe(state("scb-set", broker_name(b), sub=sub.id, adv=e.adv.id))
            st.install.expect()
            self.send(b, e.last_hop, CibSet(e.adv.id, b[1], sub))
        for nb in self.sub_forward(b, src):  # broadcast over the cluster's aLinks only
            st.install.expect()
            self.send(b, nb, Sub(sub))

    def cib_set_targets(self, b: Broker, sub: Subscription) -> list[SrtEntry]:
        return cib_set_targets(b, sub, self.srt[b])

    def sub_forward(self, b: Broker, src: Broker | None) -> list[Broker]:
        return [nb for nb in self.scot.primary_neighbours(b) if nb != src]

    def unsubscribe(self, sub_id: str) -> None:
        st = self.subs[sub_id]
        st.active = False
        self.receive_unsub(st.host, sub_id, None)

    def receive_unsub(self, b: Broker, sub_id: str, src: Broker | None) -> None:
        # Bits are never cleared (A6): a stale CIB costs copies, never a wrong delivery.
        gone = self.prt[b].pop(sub_id, None)
        if self._observer is not None and gone is not None:
            self.observe(state("prt-remove", broker_name(b), sub=sub_id))
        for nb in self.sub_forward(b, src):
            self.send(b, nb, Unsub(sub_id))

    # -- notification routing (§VII) -------------------------------------------------------
    def publish(self, event: Event, seq: int) -> None:
        host = self.host_of(event.publisher)
        self.note_publish(event, seq)
        stc = 0
        conforming = self.conforming(event)
        for adv in conforming:  # A13: the union of the conforming CIVs
            e = self.srt[host].get(adv.id)
            if e is not None and e.last_hop is None:
                stc |= e.stc_mask
        if self._observer is not None:
            advs = [a.id for a in conforming]
            targets = list(bits(stc))
            self.observe(
                state("publish", broker_name(host), event=event.id, advs=advs, civ=targets)
            )
        self.route(host, event, None, stc)

    def route(self, b: Broker, event: Event, src: Broker | None, civ: int) -> None:
        """Publication-context CIV `civ`: the clusters this broker must still reach."""
        if not self.receive(event, b):
            return
        alinks: set[Broker] = set()
        for e in self.prt[b].values():
            if not matches(e.sub, event, self.matching):
                continue
            if e.last_hop is None:
                self.deliver(e.sub, event)
            elif e.last_hop != src:
                alinks.add(e.last_hop)  # RPF, downstream replication (§VII)
        ilinks = {j: nb for j, nb in self.scot.secondary_neighbours(b).items() if j in bits(civ)}
        if self._observer is not None:
            self._routing_event = event.id
        for c in self.copies(b, sorted(alinks), ilinks):
            if c.civ:
                self.metrics.civ_n += 1
            self.send(b, c.to, Notification(event, c.civ))

    def copies(self, b: Broker, alinks: list[Broker], ilinks: dict[int, Broker]) -> list[Copy]:
        if self.routing == "snr":
            return snr_copies(alinks, ilinks)  # §VII-A
        if self._observer is None:
            d: IdrDecision = idr_copies(
                alinks,
                ilinks,
                lambda nb: self.overloaded(b, nb),
                lambda nb: self.rank(b, nb),
            )
        else:  # the same calls in the same order (the overload rng), their answers recorded
            seen: dict[Broker, bool] = {}

            def overloaded(nb: Broker) -> bool:
                seen[nb] = self.overloaded(b, nb)
                return seen[nb]

            d = idr_copies(alinks, ilinks, overloaded, lambda nb: self.rank(b, nb))
        self.metrics.idr_cases[d.case] += 1
        if self._observer is not None:  # the link status IDR read (§VII-B, the LST)
            over = sorted(broker_name(nb) for nb, o in seen.items() if o)
            free = sorted(broker_name(nb) for nb, o in seen.items() if not o)
            targets = sorted(ilinks)
            self.observe(
                state(
                    "idr",
                    broker_name(b),
                    event=self._routing_event,
                    case=d.case,
                    targets=targets,
                    overloaded=over,
                    free=free,
                )
            )
        return list(d.copies)
