"""The TID-based baseline ([20], PADRES; OctopiA §II, §VIII) on the same brokers, the SCOT
taken unclustered (every link alike).

- An advertisement is flooded with a tree identification (TID, here its id): each broker keeps
  the first copy and its lastHop and forwards it to every other neighbour; later copies are
  discarded (and cost IMs, Fig. 1(a)). The first copies form an acyclic advertisement tree.
- A subscription is bound to the TIDs of the advertisements it overlaps and follows each one's
  reverse path toward its root, stored as (s, TID, lastHop); it may reach a broker twice with
  different TIDs (Fig. 1(c)). An advertisement issued later pulls the overlapping local
  subscriptions of every broker it reaches (PADRES).
- A notification carries the TID of one advertisement it conforms to (the first by id) and is
  forwarded by the PRT entries of that TID: the tree makes it exactly once.
- TID dynamic routing (OctopiA §II: "paths associated with the bounded TIDs are used in
  dynamic routing of publications provided their last hops are different"), behind
  `config.tid_dynamic` (decision O-TID-DYN): when the link to a next hop is overloaded (Eq. 10,
  the same LST as IDR's) and every matching subscription it serves is bound to another TID
  whose lastHop here differs, is not the sender and is not overloaded, the copy goes there
  carrying that TID instead. A copy switches at most once; the subscriber's broker hands an
  event to a subscription once (a second copy costs IMs, not a duplicate delivery).
"""

from __future__ import annotations

from pubsub_spec.reference.common.matching import matches
from pubsub_spec.reference.common.model import Event, Subscription
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.octopia.advertisements import Advertisement, overlaps
from pubsub_spec.reference.octopia.config import OctopiaConfig, config_of
from pubsub_spec.reference.octopia.messages import Adv, Message, Notification, Sub, Unadv, Unsub
from pubsub_spec.reference.octopia.scot import Broker, broker_name
from pubsub_spec.reference.octopia.system import BrokerNetwork, PrtEntry, SubState
from pubsub_spec.reference.sim.installation import Installation
from pubsub_spec.reference.sim.observe import state


class TidSrtEntry:
    __slots__ = ("adv", "last_hop")

    def __init__(self, adv: Advertisement, last_hop: Broker | None) -> None:
        self.adv = adv
        self.last_hop = last_hop


class TidSystem(BrokerNetwork):
    message_kinds = (
        "Advertisement",
        "Unadvertisement",
        "Subscription",
        "Unsubscription",
        "Notification",
    )

    def __init__(self, trace: Trace, config: OctopiaConfig) -> None:
        self.srt: dict[Broker, dict[str, TidSrtEntry]] = {}
        self.prt: dict[Broker, dict[tuple[str, str], PrtEntry]] = {}
        self.local: dict[Broker, dict[str, Subscription]] = {}
        self.event_tid: dict[str, str] = {}  # O-TID-DYN: the TID each publish started with
        self.delivered: set[tuple[str, str]] = set()  # O-TID-DYN: (event, sub) handed over
        self.switches = 0  # O-TID-DYN: copies moved to another bound TID's path
        super().__init__(trace, config)

    @classmethod
    def for_trace(cls, trace: Trace, section: str = "tid") -> TidSystem:
        return cls(trace, config_of(trace, section))

    def init_tables(self) -> None:
        self.srt = {b: {} for b in self.scot.brokers}
        self.prt = {b: {} for b in self.scot.brokers}
        self.local = {b: {} for b in self.scot.brokers}

    def describe(self) -> str:
        n = len(self.scot.brokers)
        return f"TID baseline (PADRES [20]) on the unclustered SCOT ({n} brokers)"

    def srt_sizes(self) -> list[int]:
        return [len(self.srt[b]) for b in self.scot.brokers]

    def match_entries(self, b: Broker, msg: Message) -> int:
        # O-PROC: PADRES matches a subscription against the SRT to find the advertisements
        # it follows, an advertisement and a notification against the PRT ([20]; §VIII).
        if isinstance(msg, Sub):
            return len(self.srt[b])
        if isinstance(msg, Adv | Notification):
            return len(self.prt[b])
        return 0

    def prt_sizes(self) -> list[int]:
        return [len(self.prt[b]) for b in self.scot.brokers]

    @staticmethod
    def _name(b: Broker | None) -> str | None:
        return None if b is None else broker_name(b)

    def report_tables(self) -> None:
        super().report_tables()
        for b in self.scot.brokers:
            for tid, e in sorted(self.srt[b].items()):
                last = self._name(e.last_hop)
                self.observe(
                    state("srt-add", broker_name(b), adv=tid, tid=tid, last_hop=last, initial=True)
                )
            for (sid, tid), p in sorted(self.prt[b].items()):
                last = self._name(p.last_hop)
                self.observe(
                    state("prt-add", broker_name(b), sub=sid, tid=tid, last_hop=last, initial=True)
                )

    def _handle(self, src: Broker | None, b: Broker, msg: Message) -> None:
        if isinstance(msg, Adv):
            self.on_adv(src, b, msg.adv)
        elif isinstance(msg, Unadv):
            self.on_unadv(src, b, msg.adv_id)
        elif isinstance(msg, Sub):
            assert msg.tid is not None
            st = self.subs.get(msg.sub.id)
            if st is not None:
                st.install.arrived()
            self.receive_sub(b, msg.sub, msg.tid, src)
            if st is not None:
                self.installed_now(st)
        elif isinstance(msg, Unsub):
            assert msg.tid is not None
            self.receive_unsub(b, msg.sub_id, msg.tid)
        elif isinstance(msg, Notification):
            assert msg.tid is not None
            self.route(b, msg.event, msg.tid, src)

    # -- advertisement flooding with TID ([20]; §II, Fig. 1(a)) ----------------------------
    def _advertise(self, host: Broker, adv: Advertisement) -> None:
        self.on_adv(None, host, adv)

    def on_adv(self, src: Broker | None, b: Broker, adv: Advertisement) -> None:
        if adv.id in self.srt[b]:
            self.metrics.duplicates_discarded += 1  # a duplicate of the same TID (§II)
            if self._observer is not None:
                self.observe(
                    state(
                        "adv-duplicate",
                        broker_name(b),
                        adv=adv.id,
                        tid=adv.id,
                        last_hop=self._name(src),
                    )
                )
            return
        self.srt[b][adv.id] = TidSrtEntry(adv, src)
        if self._observer is not None:
            self.observe(
                state("srt-add", broker_name(b), adv=adv.id, tid=adv.id, last_hop=self._name(src))
            )
        for nb in sorted(self.scot.neighbours(b)):
            if nb != src:
                self.send(b, nb, Adv(adv, b, tid=adv.id))
        # local subscriptions bind to the new TID (PADRES), the host's own ones included
        for _sid, sub in sorted(self.local[b].items()):
            if overlaps(adv, sub):
                self.receive_sub(b, sub, adv.id, None)

    def _unadvertise(self, host: Broker, adv_id: str) -> None:
        self.on_unadv(None, host, adv_id)

    def on_unadv(self, src: Broker | None, b: Broker, tid: str) -> None:
        if self.srt[b].pop(tid, None) is None:
            return
        if self._observer is not None:
            self.observe(state("srt-remove", broker_name(b), adv=tid, tid=tid))
        for key in [k for k in self.prt[b] if k[1] == tid]:
            del self.prt[b][key]
            if self._observer is not None:
                self.observe(state("prt-remove", broker_name(b), sub=key[0], tid=tid))
        for nb in sorted(self.scot.neighbours(b)):
            if nb != src:
                self.send(b, nb, Unadv(tid, tid=tid))

    # -- subscriptions along reverse paths of bound TIDs ([20]; §II, Fig. 1(c)) ------------
    def subscribe(self, sub: Subscription, seq: int) -> None:
        host = self.host_of(sub.subscriber)
        st = self.subs[sub.id] = SubState(sub, seq, host, Installation(self.engine.now))
        self.local[host][sub.id] = sub
        for tid, e in sorted(self.srt[host].items()):
            if overlaps(e.adv, sub):
                self.receive_sub(host, sub, tid, None)
        self.installed_now(st)  # no reverse path to follow: installed at once

    def receive_sub(self, b: Broker, sub: Subscription, tid: str, src: Broker | None) -> None:
        e = self.srt[b].get(tid)
        if e is None:
            return
        self.prt[b][(sub.id, tid)] = PrtEntry(sub, src)
        if self._observer is not None:
            last = self._name(src)
            self.observe(state("prt-add", broker_name(b), sub=sub.id, tid=tid, last_hop=last))
        if e.last_hop is not None:
            st = self.subs.get(sub.id)
            if st is not None:
                st.install.expect()
            self.send(b, e.last_hop, Sub(sub, tid))

    def unsubscribe(self, sub_id: str) -> None:
        st = self.subs[sub_id]
        st.active = False
        self.local[st.host].pop(sub_id, None)
        for key in sorted(k for k in self.prt[st.host] if k[0] == sub_id):
            self.receive_unsub(st.host, sub_id, key[1])

    def receive_unsub(self, b: Broker, sub_id: str, tid: str) -> None:
        if self.prt[b].pop((sub_id, tid), None) is None:
            return
        if self._observer is not None:
            self.observe(state("prt-remove", broker_name(b), sub=sub_id, tid=tid))
        e = self.srt[b].get(tid)
        if e is not None and e.last_hop is not None:
            self.send(b, e.last_hop, Unsub(sub_id, tid))

    # -- notifications carry a TID ([20]; §II) ---------------------------------------------
    def publish(self, event: Event, seq: int) -> None:
        host = self.host_of(event.publisher)
        self.note_publish(event, seq)
        conforming = self.conforming(event)
        tid = conforming[0].id
        if self.config.tid_dynamic:
            self.event_tid[event.id] = tid
        if self._observer is not None:
            advs = [a.id for a in conforming]
            self.observe(state("publish", broker_name(host), event=event.id, advs=advs, tid=tid))
        self.route(host, event, tid, None)

    def route(self, b: Broker, event: Event, tid: str, src: Broker | None) -> None:
        if not self.receive(event, b):
            return
        nxt: set[Broker] = set()
        served: dict[Broker, list[str]] = {}  # next hop -> the subscriptions it serves
        for (sid, t), e in sorted(self.prt[b].items()):
            if t != tid or not matches(e.sub, event, self.matching):
                continue
            if e.last_hop is None:
                if self.config.tid_dynamic:  # O-TID-DYN: one hand-over per (event, sub)
                    if (event.id, sid) in self.delivered:
                        continue
                    self.delivered.add((event.id, sid))
                self.deliver(e.sub, event)
            elif e.last_hop != src:
                nxt.add(e.last_hop)
                served.setdefault(e.last_hop, []).append(sid)
        if self.config.tid_dynamic and self.event_tid.get(event.id) == tid:
            for nb, t2, nb2 in self.detours(b, src, tid, served):
                nxt.discard(nb)
                self.switches += 1
                self.send(b, nb2, Notification(event, tid=t2))
        for nb in sorted(nxt):
            self.send(b, nb, Notification(event, tid=tid))

    def detours(
        self, b: Broker, src: Broker | None, tid: str, served: dict[Broker, list[str]]
    ) -> list[tuple[Broker, str, Broker]]:
        """O-TID-DYN: (overloaded next hop, other TID, its next hop) where every subscription
        the hop serves is bound to that TID with that other, unoverloaded lastHop here."""
        out: list[tuple[Broker, str, Broker]] = []
        for nb, sids in sorted(served.items()):
            if not self.overloaded(b, nb):
                continue
            options: dict[tuple[str, Broker], int] = {}
            for (sid, t2), e in self.prt[b].items():
                if t2 != tid and sid in sids and e.last_hop not in (None, nb, src):
                    assert e.last_hop is not None
                    options[(t2, e.last_hop)] = options.get((t2, e.last_hop), 0) + 1
            full = sorted(k for k, n in options.items() if n == len(set(sids)))
            for t2, nb2 in full:
                if not self.overloaded(b, nb2):
                    out.append((nb, t2, nb2))
                    break
        return out
