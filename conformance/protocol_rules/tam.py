"""Protocol rules of the tam family (systems: tam, tam-basic); see conformance/OBSERVATIONS.md,
"tam, tam-basic" (format version 1).

David Tam, Reza Azimi, Hans-Arno Jacobsen, "Building Content-based Publish/Subscribe Systems with
Distributed Hash Tables", DBISP2P 2003 ("Tam et al."), over Scribe (Castro, Druschel, Kermarrec,
Rowstron, IEEE JSAC 2002) and Pastry. Section numbers of Tam et al. are the project's
reconstruction (docs/tam.md, "Our reading of the damaged text").

The rules read the observation log only. The paper's functions they need are taken from the
modules that define them, never from the system's handlers: the index keys of a request
(reference/tam/tables.py: digest, SHA-1 key, interval indicators, Tam et al. §3.2, §3.5), the
Pastry ids and numeric closeness (reference/overlay/pastry.py: a node's id is the SHA-1 of its
trace name, T4; a key's home is the live node numerically closest to it) and strict matching
(reference/common/matching.py).

Each system's log is read in one pass (`_scan`) that records the first offence of every rule;
each Rule returns its own. The per-(event, key) tree check is local (`_Trees`) rather than the
generic `per_event_tree`: under the `all` index policy an event legitimately reaches a node once
per index tree (Tam et al. §3.6, the seen-list), so a tree is one per (event, key), not per
event.
"""

from __future__ import annotations

import bisect
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field

from pubsub_spec.conformance.protocol_rules.base import Deviation, ObservedRun, Rule
from pubsub_spec.reference.common.matching import matches
from pubsub_spec.reference.common.model import Event, Subscription
from pubsub_spec.reference.common.ops import (
    Fail,
    Join,
    Leave,
    Publish,
    Subscribe,
    initial_node_names,
)
from pubsub_spec.reference.overlay.pastry import PastryRing, sha1_id
from pubsub_spec.reference.sim.observe import SEND, STATE, Observation
from pubsub_spec.reference.tam.config import BASIC_SECTION, SECTION, TamConfig, config_of
from pubsub_spec.reference.tam.tables import Index, Table

TAM, TAM_BASIC = "tam", "tam-basic"

# Message types (reference/tam/messages.py declares them; `pubsub-spec systems`).
JOIN, LEAVE, PUBLISH, MULTICAST = "ScribeJoin", "ScribeLeave", "ScribePublish", "ScribeMulticast"
T_SUBSCRIBE, T_UNSUBSCRIBE, T_PUBLISH = "TamSubscribe", "TamUnsubscribe", "TamPublish"
T_NOTIFY, T_TRANSFER = "TamNotify", "TamTransfer"

# State changes (Scribe's tree, Scribe §2.2; Tam's index keys, Tam et al. §3.2).
ROOT, PARENT = "scribe-root", "scribe-parent"
CHILD_ADDED, CHILD_REMOVED = "scribe-child-added", "scribe-child-removed"
MEMBER, LEFT = "scribe-member", "scribe-left"
REGISTER, UNREGISTER = "tam-register", "tam-unregister"
STORE, UNSTORE = "tam-store", "tam-unstore"

SCRIBE_STATES = frozenset({ROOT, PARENT, CHILD_ADDED, CHILD_REMOVED, MEMBER, LEFT})
STATES: dict[str, frozenset[str]] = {
    TAM: SCRIBE_STATES | {REGISTER, UNREGISTER},
    TAM_BASIC: frozenset({REGISTER, UNREGISTER, STORE, UNSTORE}),
}
# Types that forward an event, and types that install a subscription (the cost envelope).
DISSEMINATION: dict[str, frozenset[str]] = {
    TAM: frozenset({PUBLISH, MULTICAST}),
    TAM_BASIC: frozenset({T_PUBLISH, T_NOTIFY}),
}
# (Only the types that install one: removals and churn handovers are not charged to subscribes.)
SUBSCRIPTION: dict[str, frozenset[str]] = {
    TAM: frozenset({JOIN}),
    TAM_BASIC: frozenset({T_SUBSCRIBE}),
}
SENDS: dict[str, frozenset[str]] = {
    TAM: frozenset({JOIN, LEAVE, PUBLISH, MULTICAST}),
    TAM_BASIC: frozenset({T_SUBSCRIBE, T_UNSUBSCRIBE, T_PUBLISH, T_NOTIFY, T_TRANSFER}),
}

# What every observation of a name must carry: envelope parts and typed fields
# ("key": 40 hex digits; "node": a trace node name; "bool"; "index": a non-empty list of
# attribute names; "keys"/"subs": a list of keys / subscription ids).
_ENVELOPE: dict[str, tuple[str, ...]] = {
    PUBLISH: ("event",),
    MULTICAST: ("event",),
    T_SUBSCRIBE: ("sub",),
    T_UNSUBSCRIBE: ("sub",),
    T_PUBLISH: ("event",),
    T_NOTIFY: ("event",),
    REGISTER: ("sub",),
    UNREGISTER: ("sub",),
    STORE: ("sub",),
    UNSTORE: ("sub",),
}
_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    JOIN: (("key", "key"), ("origin", "node")),
    LEAVE: (("key", "key"),),
    PUBLISH: (("key", "key"),),
    MULTICAST: (("key", "key"),),
    T_SUBSCRIBE: (("key", "key"),),
    T_UNSUBSCRIBE: (("key", "key"),),
    T_PUBLISH: (("key", "key"),),
    T_NOTIFY: (("key", "key"), ("subs", "subs")),
    T_TRANSFER: (("keys", "keys"), ("subs", "subs")),
    ROOT: (("key", "key"),),
    PARENT: (("key", "key"), ("parent", "node")),
    CHILD_ADDED: (("key", "key"), ("child", "node")),
    CHILD_REMOVED: (("key", "key"), ("child", "node")),
    MEMBER: (("key", "key"), ("member", "bool")),
    LEFT: (("key", "key"),),
    REGISTER: (("key", "key"), ("index", "index")),
    UNREGISTER: (("key", "key"), ("index", "index")),
    STORE: (("key", "key"),),
    UNSTORE: (("key", "key"),),
}
_HEX = frozenset("0123456789abcdef")


def parse_key(value: object) -> int | None:
    """A key as observed (40 lower-case hex digits, 160 bits), or None if malformed."""
    if isinstance(value, str) and len(value) == 40 and set(value) <= _HEX:
        return int(value, 16)
    return None


def _key(obs: Observation) -> int | None:
    return parse_key(obs.fields.get("key"))


class _Context:
    """What the rules need from the trace: its subscriptions and events, the tables with
    their keys (Tam et al. §3.1-§3.5), and the live membership around each op, from which a
    key's home (the live node numerically closest to it, Pastry) is computed."""

    def __init__(self, run: ObservedRun, section: str) -> None:
        trace = run.trace
        self.run = run
        self.config: TamConfig = config_of(trace, section)
        self.tables = {s.name: Table(s, self.config) for s in trace.schemas}
        self.subs: dict[str, Subscription] = {}
        self.events: dict[str, Event] = {}
        self.published_at: dict[str, int] = {}
        live = set(initial_node_names(trace.initial_nodes))
        self.nodes: set[str] = set(live)
        self.epoch_seqs: list[int] = [-1]
        self.epochs: list[frozenset[str]] = [frozenset(live)]
        for op in trace.ops:
            if isinstance(op, Subscribe):
                self.subs[op.sub.id] = op.sub
            elif isinstance(op, Publish):
                self.events[op.event.id] = op.event
                self.published_at[op.event.id] = op.seq
            elif isinstance(op, Join | Leave | Fail):
                if isinstance(op, Join):
                    live.add(op.node)
                    self.nodes.add(op.node)
                else:
                    live -= {op.node} if isinstance(op, Leave) else set(op.nodes)
                self.epoch_seqs.append(op.seq)
                self.epochs.append(frozenset(live))
        self._rings: dict[int, tuple[PastryRing, dict[int, str]]] = {}
        self._sub_keys: dict[tuple[str, Index], frozenset[int]] = {}
        self._event_keys: dict[str, frozenset[int]] = {}
        self.registered_keys: dict[str, set[int]] = {}  # sub -> keys it registered (the scan)

    def _home(self, epoch: int, key: int) -> str | None:
        got = self._rings.get(epoch)
        if got is None:
            c = self.config
            ring = PastryRing(c.id_bits, c.digit_bits, c.leaf_set_size)
            names: dict[int, str] = {}
            for n in sorted(self.epochs[epoch]):
                names[sha1_id(n)] = n
                ring.add(sha1_id(n))
            got = self._rings[epoch] = (ring, names)
        ring, names = got
        return names[ring.closest(key)] if len(ring) else None

    def homes(self, key: int, seq: int) -> set[str]:
        """The key's home under the membership before and after the op `seq` (an observation
        reported under a join's seq may precede the join: the driver lets messages in flight
        arrive first)."""
        after = bisect.bisect_right(self.epoch_seqs, seq) - 1
        before = bisect.bisect_left(self.epoch_seqs, seq) - 1
        return {h for e in {before, after} if (h := self._home(e, key)) is not None}

    def sub_keys(self, sub: Subscription, index: Index) -> frozenset[int]:
        got = self._sub_keys.get((sub.id, index))
        if got is None:
            got = frozenset(self.tables[sub.schema].subscription_keys(sub, index))
            self._sub_keys[(sub.id, index)] = got
        return got

    def event_keys(self, event: Event) -> frozenset[int]:
        """One key per index the publication specifies (Tam et al. §3.2, §3.5)."""
        got = self._event_keys.get(event.id)
        if got is None:
            table = self.tables[event.schema]
            got = frozenset(table.event_key(event, ix) for ix in table.applicable_to_event(event))
            self._event_keys[event.id] = got
        return got


@dataclass
class _Found:
    """The first offence of each rule in one pass over a log."""

    first: dict[str, tuple[int | None, str]] = field(default_factory=dict)

    def add(self, rule: str, index: int | None, detail: str) -> None:
        self.first.setdefault(rule, (index, detail))


def _fields_ok(ctx: _Context, obs: Observation) -> str | None:
    """Why `obs` is malformed for the tam format, or None."""
    for part in _ENVELOPE.get(obs.name, ()):
        value = obs.event if part == "event" else obs.sub
        known = ctx.events if part == "event" else ctx.subs
        if value is None or value not in known:
            return f"{obs.name} needs `{part}`, the id of a trace {part}, got {value!r}"
    for node in (obs.node, obs.to) if obs.kind == SEND else (obs.node,):
        if node not in ctx.nodes:
            return f"{obs.name}: {node!r} is not a node of the trace"
    for name, kind in _FIELDS.get(obs.name, ()):
        v = obs.fields.get(name)
        ok = (
            (kind == "key" and parse_key(v) is not None)
            or (kind == "node" and isinstance(v, str) and v in ctx.nodes)
            or (kind == "bool" and isinstance(v, bool))
            or (
                kind == "index"
                and isinstance(v, list)
                and bool(v)
                and all(isinstance(a, str) for a in v)
            )
            or (kind == "keys" and isinstance(v, list) and all(parse_key(x) is not None for x in v))
            or (kind == "subs" and isinstance(v, list) and all(x in ctx.subs for x in v))
        )
        if not ok:
            return f"{obs.name}: field `{name}` must be a {kind}, got {v!r}"
    if obs.name == T_NOTIFY and not obs.fields.get("subs"):
        return "TamNotify: field `subs` must name at least one subscription"
    return None


def _registration(
    ctx: _Context,
    found: _Found,
    rule: str,
    i: int,
    obs: Observation,
    registered: dict[tuple[str, Index], set[int]],
    first_at: dict[str, int],
) -> None:
    """`tam-register`: the subscription's own node, an index of its table that it covers, and
    a key of that index (Tam et al. §3.2 digest and key, §3.5 one key per interval met)."""
    sub = ctx.subs[obs.sub or ""]
    index: Index = tuple(obs.fields["index"])
    key = _key(obs)
    table = ctx.tables[sub.schema]
    if obs.node != sub.subscriber:
        found.add(
            rule, i, f"{obs.sub} registered at {obs.node}, not at its subscriber {sub.subscriber}"
        )
    elif index not in table.applicable_to_subscription(sub):
        found.add(
            rule,
            i,
            f"{obs.sub} registered on index {list(index)}, not an index of "
            f"schema {sub.schema} whose every attribute it constrains",
        )
    elif key not in ctx.sub_keys(sub, index):
        found.add(
            rule,
            i,
            f"{obs.sub} registered on key {obs.fields['key']}, not one of the "
            f"keys of index {list(index)} (the intervals its predicates meet)",
        )
    else:
        registered.setdefault((sub.id, index), set()).add(key)
        ctx.registered_keys.setdefault(sub.id, set()).add(key)
        first_at.setdefault(sub.id, i)


def _registration_complete(
    ctx: _Context,
    found: _Found,
    rule: str,
    registered: dict[tuple[str, Index], set[int]],
    first_at: dict[str, int],
) -> None:
    """Every subscription of the trace registered, on every key of each index it chose."""
    for (sid, index), keys in registered.items():
        want = ctx.sub_keys(ctx.subs[sid], index)
        if keys != want:
            found.add(
                rule,
                first_at[sid],
                f"{sid} registered {len(keys)} of the {len(want)} keys of index {list(index)}",
            )
    for sid in ctx.subs:
        if sid not in first_at:
            found.add(rule, None, f"subscription {sid} registered on no index key")


class _Chains:
    """Messages routed hop by hop toward a key (Pastry; Tam et al. §3.2, §3.3, T11), one chain
    per id: the first hop from the chain's origin, every next from the last receiver, no node
    twice. A new hop from the origin starts the chain again (a re-registration)."""

    def __init__(self) -> None:
        self.holder: dict[Hashable, str] = {}
        self.visited: dict[Hashable, set[str]] = {}
        self.last: dict[Hashable, tuple[int, int]] = {}  # chain -> (index, seq) of its last hop

    def hop(self, cid: Hashable, origin: str, obs: Observation, i: int, seq: int) -> str | None:
        at = self.holder.get(cid)
        if obs.node == origin and at != origin:
            self.visited[cid] = {origin}
        elif obs.node != at:
            return (
                f"{obs.name} {cid} sent by {obs.node}, which does not hold it "
                f"(it starts at {origin} and goes on from the last receiver)"
            )
        assert obs.to is not None
        if obs.to in self.visited[cid]:
            return f"{obs.name} {cid} visits {obs.to} twice (a routing cycle)"
        self.visited[cid].add(obs.to)
        self.holder[cid] = obs.to
        self.last[cid] = (i, seq)
        return None

    def ends(self) -> Iterable[tuple[Hashable, str, int, int]]:
        for cid, at in self.holder.items():
            i, seq = self.last[cid]
            yield cid, at, i, seq


def _check_ends(ctx: _Context, found: _Found, rule: str, chains: _Chains, what: str) -> None:
    """Every route ends at its key's home (Pastry: the live node numerically closest)."""
    for cid, at, i, seq in chains.ends():
        assert isinstance(cid, tuple)
        key = cid[1]
        homes = ctx.homes(key, seq)
        if at not in homes:
            found.add(
                rule,
                i,
                f"{what} {cid[0]} for key {key:040x} ends at {at}, not at the "
                f"key's home {sorted(homes)}",
            )


# -- tam: Scribe trees (Tam et al. §3.3) -----------------------------------------------------

R_FIELDS = "tam/fields"
R_REGISTER = "tam/register-keys"
R_EVENT_KEYS = "tam/event-keys"
R_JOIN_STOPS = "tam/join-stops"
R_JOIN_ABSORBED = "tam/join-absorbed"
R_ROOT = "tam/root-is-home"
R_PUBLISH_ROUTE = "tam/publish-route"
R_TREE = "tam/multicast-tree"
R_EDGE = "tam/multicast-edge"
R_DELIVERED = "tam/delivered-once-via-tree"

B_FIELDS = "tam-basic/fields"
B_REGISTER = "tam-basic/register-keys"
B_SUBSCRIBE_ROUTE = "tam-basic/subscribe-route"
B_STORED = "tam-basic/stored-at-home"
B_PUBLISH_ROUTE = "tam-basic/publish-route"
B_NOTIFY_HOME = "tam-basic/notify-from-home"
B_NOTIFY_MATCH = "tam-basic/notify-full-match"
B_DELIVERED = "tam-basic/delivered-once-via-notify"


def _scan_tam(run: ObservedRun) -> _Found:
    ctx = _Context(run, SECTION)
    found = _Found()
    registered: dict[tuple[str, Index], set[int]] = {}
    first_reg: dict[str, int] = {}
    parent: dict[tuple[int, str], str | None] = {}  # (key, node) -> parent; None at the root
    children: dict[tuple[int, str], set[str]] = defaultdict(set)
    licences: Counter[tuple[int, str, str]] = Counter()  # a JOIN per parent chosen
    pending: dict[tuple[int, str, str], list[int]] = defaultdict(list)  # JOINs not absorbed
    chains = _Chains()
    tree_root: dict[tuple[str, int], str] = {}
    received: dict[tuple[str, int], set[str]] = defaultdict(set)
    sent_to: dict[tuple[str, int, str], tuple[int, frozenset[str], set[str]]] = {}
    # (event, key) -> node given a copy -> (where, its children then)
    holds: dict[tuple[str, int], dict[str, tuple[int, frozenset[str]]]] = {}
    reached: dict[str, set[str]] = defaultdict(set)  # event -> nodes a copy reached
    names = SENDS[TAM] | STATES[TAM]
    for i, o in enumerate(run.log):
        obs, seq = o.obs, o.seq
        if obs.name not in names:
            continue
        why = _fields_ok(ctx, obs)
        if why is not None:
            found.add(R_FIELDS, i, why)
            continue
        key = _key(obs)
        assert key is not None
        name, node = obs.name, obs.node
        if obs.kind == STATE:
            here = (key, node)
            # Tam et al. §3.2, §3.5, §3.6: the subscription's index keys
            if name == REGISTER:
                _registration(ctx, found, R_REGISTER, i, obs, registered, first_reg)
            elif name == ROOT:
                # Tam et al. §3.3: the root of the tree is the key's home
                homes = ctx.homes(key, seq)
                if node not in homes:
                    found.add(
                        R_ROOT,
                        i,
                        f"{node} became the root of key {key:040x}, whose home is {sorted(homes)}",
                    )
                parent[here] = None
            elif name == PARENT:
                # Scribe §2.2.1: a node off the tree enters it below its next hop, once
                p = str(obs.fields["parent"])
                handover = obs.fields.get("handover") is True and parent.get(here, 0) is None
                if here in parent and not handover:
                    found.add(
                        R_JOIN_STOPS,
                        i,
                        f"{node}, already in the tree of key "
                        f"{key:040x}, chose a new parent {p} (a JOIN stops at the "
                        "first node in the tree)",
                    )
                parent[here] = p
                licences[(key, node, p)] += 1
            elif name == CHILD_ADDED:
                # Scribe §2.2.1: the receiver of a JOIN adds its sender as a child
                c = str(obs.fields["child"])
                if here not in parent:
                    found.add(
                        R_JOIN_ABSORBED,
                        i,
                        f"{node} added child {c} for key {key:040x} while not in its tree",
                    )
                waiting = pending.get((key, c, node))
                if not waiting:
                    found.add(
                        R_JOIN_ABSORBED,
                        i,
                        f"{node} added child {c} for key {key:040x} without a JOIN from it",
                    )
                else:
                    waiting.pop(0)
                children[here].add(c)
            elif name == CHILD_REMOVED:
                children[here].discard(str(obs.fields["child"]))
            elif name == LEFT:
                parent.pop(here, None)
                children.pop(here, None)
            continue
        to = obs.to
        assert to is not None
        # Tam et al. §3.3: a JOIN stops at the first node in the tree
        if name == JOIN:
            if licences[(key, node, to)] <= 0:
                found.add(
                    R_JOIN_STOPS,
                    i,
                    f"{node} sent a JOIN for key {key:040x} to {to} "
                    "without having entered the tree below it: a node already in the "
                    "tree absorbs a JOIN",
                )
            else:
                licences[(key, node, to)] -= 1
            pending[(key, node, to)].append(i)
        elif name in (PUBLISH, MULTICAST):
            # Tam et al. §3.2, §3.5: one key per index the publication specifies
            event = ctx.events[obs.event or ""]
            if key not in ctx.event_keys(event):
                found.add(
                    R_EVENT_KEYS,
                    i,
                    f"{name} of {event.id} on key {key:040x}, not the "
                    "key of an index the publication specifies",
                )
                continue
            ek = (event.id, key)
            # Tam et al. §3.3, T11: routed hop by hop to the root
            if name == PUBLISH:
                why = chains.hop(ek, event.publisher, obs, i, seq)
                if why is not None:
                    found.add(R_PUBLISH_ROUTE, i, why)
                holds[ek] = {
                    to: (i, frozenset(children.get((key, to), ())))
                }  # the route's last node
                continue
            # Tam et al. §3.3: multicast from the root down the tree, one copy per node
            root = tree_root.get(ek)
            if root is None:
                start = chains.holder.get(ek, event.publisher)
                homes = ctx.homes(key, seq)
                if node != start or node not in homes:
                    found.add(
                        R_TREE,
                        i,
                        f"the multicast of {event.id} on key {key:040x} "
                        f"starts at {node}; it starts where the publication was routed, "
                        f"{start}, the key's home {sorted(homes)}",
                    )
                root = tree_root[ek] = node
                reached[event.id].add(node)
            got = received[ek]
            if to == root or to in got:
                found.add(R_TREE, i, f"{to} receives {event.id} on key {key:040x} twice")
            elif node != root and node not in got:
                found.add(
                    R_TREE, i, f"{node} forwards {event.id} on key {key:040x} before receiving it"
                )
            got.add(to)
            holds.setdefault(ek, {})[to] = (i, frozenset(children.get((key, to), ())))
            reached[event.id].add(to)
            snap = sent_to.get((event.id, key, node))
            if snap is None:
                snap = sent_to[(event.id, key, node)] = (i, frozenset(children[(key, node)]), set())
            snap[2].add(to)
            # Tam et al. §3.3; Scribe §2.2: down tree edges only
            if to not in children[(key, node)]:
                found.add(
                    R_EDGE,
                    i,
                    f"{node} sent {event.id} on key {key:040x} to {to}, "
                    "which is not its child in the tree",
                )
    _registration_complete(ctx, found, R_REGISTER, registered, first_reg)
    for (key, a, b), idx in pending.items():
        if idx:
            found.add(
                R_JOIN_ABSORBED,
                idx[0],
                f"the JOIN {a} -> {b} for key {key:040x} was never absorbed (no child added)",
            )
    _check_ends(ctx, found, R_PUBLISH_ROUTE, chains, "the publication")
    # Tam et al. §3.3: down every tree edge
    for (eid, key, node), (i, kids, to_set) in sent_to.items():
        if to_set != kids:
            found.add(
                R_EDGE,
                i,
                f"{node} sent {eid} on key {key:040x} to {sorted(to_set)}, "
                f"not down every edge of the tree {sorted(kids)}",
            )
    for (eid, key), given in holds.items():
        for node, (i, kids) in given.items():
            if kids and (eid, key, node) not in sent_to:
                found.add(
                    R_EDGE,
                    i,
                    f"{node} got {eid} on key {key:040x} and sent it down none of the edges "
                    f"of the tree {sorted(kids)}",
                )
    # Where each publication arrived: the end of its route, or the publisher itself when it
    # is the key's home (the root delivers to itself as a member).
    for eid, event in ctx.events.items():
        for key in ctx.event_keys(event):
            at = chains.holder.get((eid, key))
            if at is not None:
                reached[eid].add(at)
            elif event.publisher in _publish_homes(ctx, key, eid):
                reached[eid].add(event.publisher)
    _delivered(
        ctx,
        found,
        R_DELIVERED,
        run,
        lambda e, s: ctx.subs[s].subscriber in reached[e],
        "no copy of it reached that node through a tree",
    )
    return found


def _publish_homes(ctx: _Context, key: int, eid: str) -> set[str]:
    """The key's home when the event was published."""
    return ctx.homes(key, ctx.published_at[eid])


def _delivered(
    ctx: _Context,
    found: _Found,
    rule: str,
    run: ObservedRun,
    via: Callable[[str, str], bool],
    why: str,
) -> None:
    """Every delivery once (Tam et al. §3.6: duplicates are discarded), and only where the
    protocol brought the event (§3.3, §3.4: matching at the receiving subscribers)."""
    seen: set[tuple[str, str]] = set()
    for d in run.deliveries:
        pair = (d.event_id, d.sub_id)
        if pair in seen:
            found.add(rule, None, f"{d.sub_id} received {d.event_id} twice")
        seen.add(pair)
        if d.sub_id in ctx.subs and d.event_id in ctx.events and not via(*pair):
            found.add(rule, None, f"{d.event_id} delivered to {d.sub_id}, but {why}")


# -- tam-basic: the home-node scheme (Tam et al. §3.2) ----------------------------------------


def _scan_basic(run: ObservedRun) -> _Found:
    ctx = _Context(run, BASIC_SECTION)
    found = _Found()
    registered: dict[tuple[str, Index], set[int]] = {}
    first_reg: dict[str, int] = {}
    sub_chains, unsub_chains, pub_chains = _Chains(), _Chains(), _Chains()
    stored: dict[tuple[str, int], set[str]] = defaultdict(set)  # (home, key) -> subs
    ever_stored: dict[str, set[int]] = defaultdict(set)  # sub -> keys it was stored under
    ever_at: dict[tuple[str, int], set[str]] = defaultdict(set)  # (home, key) -> subs
    notified: set[tuple[str, str, int]] = set()
    got_notify: set[tuple[str, str]] = set()  # (event, sub)
    matched_at_home: set[tuple[str, str]] = set()  # (event, sub) matched where it was stored
    names = SENDS[TAM_BASIC] | STATES[TAM_BASIC]
    for i, o in enumerate(run.log):
        obs, seq = o.obs, o.seq
        if obs.name not in names:
            continue
        why = _fields_ok(ctx, obs)
        if why is not None:
            found.add(B_FIELDS, i, why)
            continue
        name, node, to = obs.name, obs.node, obs.to
        if name == T_TRANSFER:
            continue  # the moved subscriptions are judged by their tam-store observations
        key = _key(obs)
        assert key is not None
        # Tam et al. §3.2, §3.5, §3.6: the subscription's index keys
        if name == REGISTER:
            _registration(ctx, found, B_REGISTER, i, obs, registered, first_reg)
        elif name == STORE:
            # Tam et al. §3.2: stored at the key's home
            sid = obs.sub or ""
            homes = ctx.homes(key, seq)
            mine = ctx.registered_keys.get(sid, set())
            if key not in mine:
                found.add(
                    B_STORED,
                    i,
                    f"{sid} stored under key {key:040x}, not one of its registered index keys",
                )
            elif node not in homes:
                found.add(
                    B_STORED,
                    i,
                    f"{sid} stored at {node}; the home of key {key:040x} is {sorted(homes)}",
                )
            stored[(node, key)].add(sid)
            ever_stored[sid].add(key)
            ever_at[(node, key)].add(sid)
        elif name == UNSTORE:
            stored[(node, key)].discard(obs.sub or "")
        elif name in (T_SUBSCRIBE, T_UNSUBSCRIBE):
            # Tam et al. §3.2: routed from the subscriber toward one of its keys
            sid = obs.sub or ""
            mine = ctx.registered_keys.get(sid, set())
            if key not in mine:
                found.add(
                    B_SUBSCRIBE_ROUTE,
                    i,
                    f"{name} of {sid} toward key {key:040x}, not one of its registered index keys",
                )
                continue
            chains = sub_chains if name == T_SUBSCRIBE else unsub_chains
            why = chains.hop((sid, key), ctx.subs[sid].subscriber, obs, i, seq)
            if why is not None:
                found.add(B_SUBSCRIBE_ROUTE, i, why)
        elif name == T_PUBLISH:
            # Tam et al. §3.2: routed from the publisher to each of its keys' homes
            event = ctx.events[obs.event or ""]
            if key not in ctx.event_keys(event):
                found.add(
                    B_PUBLISH_ROUTE,
                    i,
                    f"TamPublish of {event.id} toward key "
                    f"{key:040x}, not the key of an index the publication specifies",
                )
                continue
            why = pub_chains.hop((event.id, key), event.publisher, obs, i, seq)
            if why is not None:
                found.add(B_PUBLISH_ROUTE, i, why)
        elif name == T_NOTIFY:
            # Tam et al. §3.2: the home completes the matching and notifies
            assert to is not None
            event = ctx.events[obs.event or ""]
            at = pub_chains.holder.get((event.id, key), event.publisher)
            homes = ctx.homes(key, seq)
            subs = [str(s) for s in obs.fields["subs"]]
            if key not in ctx.event_keys(event) or node != at or node not in homes:
                found.add(
                    B_NOTIFY_HOME,
                    i,
                    f"{node} notified {to} of {event.id} for key "
                    f"{key:040x}; notifications come from where the publication was "
                    f"routed, {at}, the key's home {sorted(homes)}",
                )
            elif not set(subs) <= stored[(node, key)]:
                found.add(
                    B_NOTIFY_HOME,
                    i,
                    f"{node} notified {sorted(set(subs) - stored[(node, key)])} "
                    f"of {event.id}, not stored there under key {key:040x}",
                )
            for sid in subs:
                sub = ctx.subs[sid]
                if sub.subscriber != to:
                    found.add(
                        B_NOTIFY_MATCH,
                        i,
                        f"{sid} notified at {to}, not at its subscriber {sub.subscriber}",
                    )
                elif not matches(sub, event, "strict"):
                    found.add(
                        B_NOTIFY_MATCH,
                        i,
                        f"{sid} notified of {event.id}, which it "
                        "does not fully match (the home completes the matching)",
                    )
                elif (event.id, sid, key) in notified:
                    found.add(
                        B_NOTIFY_MATCH, i, f"{sid} notified of {event.id} twice for key {key:040x}"
                    )
                notified.add((event.id, sid, key))
                got_notify.add((event.id, sid))
    _registration_complete(ctx, found, B_REGISTER, registered, first_reg)
    for (sid, index), keys in registered.items():
        for key in sorted(keys - ever_stored.get(sid, set())):
            found.add(
                B_STORED,
                first_reg[sid],
                f"{sid} was never stored under its key {key:040x} (index {list(index)})",
            )
    _check_ends(ctx, found, B_PUBLISH_ROUTE, pub_chains, "the publication")
    # A subscriber that is itself the home matches locally: no TamNotify is sent.
    for eid, event in ctx.events.items():
        for key in ctx.event_keys(event):
            end = pub_chains.holder.get((eid, key))
            ends = {end} if end is not None else _publish_homes(ctx, key, eid) & {event.publisher}
            for home in ends:
                matched_at_home.update((eid, sid) for sid in ever_at.get((home, key), ()))
    _delivered(
        ctx,
        found,
        B_DELIVERED,
        run,
        lambda e, s: (e, s) in got_notify or (e, s) in matched_at_home,
        "its subscriber was neither notified of it nor the home that matched it",
    )
    return found


_CACHE: list[tuple[ObservedRun, str, _Found]] = []


def _found(run: ObservedRun, system: str) -> _Found:
    for r, s, f in _CACHE:
        if r is run and s == system:
            return f
    f = _scan_tam(run) if system == TAM else _scan_basic(run)
    _CACHE[:] = [(run, system, f)]
    return f


def _rule(system: str, rid: str, source: str, doc: str) -> Rule:
    def check(run: ObservedRun, reference: ObservedRun) -> Deviation | None:
        got = _found(run, system).first.get(rid)
        return None if got is None else rule.deviation(got[0], got[1])

    rule = Rule(rid, source, doc, check)
    return rule


TAM_PAPER = "Tam, Azimi, Jacobsen, DBISP2P 2003"
SCRIBE = "Scribe (Castro et al., IEEE JSAC 2002)"

RULES: dict[str, tuple[Rule, ...]] = {
    TAM: (
        _rule(
            TAM,
            R_FIELDS,
            f"{TAM_PAPER} §3.2-§3.3",
            "every observation of a tam name carries its fields with their domains "
            "(keys of 40 hex digits, trace node, event and subscription ids)",
        ),
        _rule(
            TAM,
            R_REGISTER,
            f"{TAM_PAPER} §3.2, §3.5, §3.6",
            "a subscription registers, at its subscriber, on exactly the keys of the indices "
            "it chose, each an index of its table whose attributes it all constrains",
        ),
        _rule(
            TAM,
            R_EVENT_KEYS,
            f"{TAM_PAPER} §3.2, §3.5",
            "a publication travels only on the key of an index it specifies",
        ),
        _rule(
            TAM,
            R_ROOT,
            f"{TAM_PAPER} §3.3; {SCRIBE} §2.2",
            "the root of a key's tree is the key's home, the live node numerically closest",
        ),
        _rule(
            TAM,
            R_JOIN_STOPS,
            f"{TAM_PAPER} §3.3; {SCRIBE} §2.2.1",
            "a node sends a JOIN only when it has just entered the tree below the receiver: "
            "a JOIN stops at the first node already in the tree",
        ),
        _rule(
            TAM,
            R_JOIN_ABSORBED,
            f"{SCRIBE} §2.2.1",
            "every JOIN is absorbed: its receiver, in the tree, adds the sender as a child",
        ),
        _rule(
            TAM,
            R_PUBLISH_ROUTE,
            f"{TAM_PAPER} §3.3",
            "a publication is routed hop by hop from its publisher to the key's home",
        ),
        _rule(
            TAM,
            R_TREE,
            f"{TAM_PAPER} §3.3",
            "per (event, key) the multicast is a tree rooted at the key's home where the "
            "publication arrived: no node receives it twice, none forwards before receiving",
        ),
        _rule(
            TAM,
            R_EDGE,
            f"{TAM_PAPER} §3.3; {SCRIBE} §2.2",
            "a node sends a publication down every edge of its tree, and only down edges",
        ),
        _rule(
            TAM,
            R_DELIVERED,
            f"{TAM_PAPER} §3.3, §3.4, §3.6",
            "each subscription receives a matching event once, at a node a tree brought it to",
        ),
    ),
    TAM_BASIC: (
        _rule(
            TAM_BASIC,
            B_FIELDS,
            f"{TAM_PAPER} §3.2",
            "every observation of a tam-basic name carries its fields with their domains",
        ),
        _rule(
            TAM_BASIC,
            B_REGISTER,
            f"{TAM_PAPER} §3.2, §3.5, §3.6",
            "a subscription registers, at its subscriber, on exactly the keys of the indices "
            "it chose, each an index of its table whose attributes it all constrains",
        ),
        _rule(
            TAM_BASIC,
            B_SUBSCRIBE_ROUTE,
            f"{TAM_PAPER} §3.2",
            "a subscription (and its removal) is routed hop by hop from its subscriber "
            "toward one of its keys",
        ),
        _rule(
            TAM_BASIC,
            B_STORED,
            f"{TAM_PAPER} §3.2",
            "a subscription is stored under each of its keys, at the key's home",
        ),
        _rule(
            TAM_BASIC,
            B_PUBLISH_ROUTE,
            f"{TAM_PAPER} §3.2",
            "a publication is routed hop by hop from its publisher to the home of each key "
            "of an index it specifies",
        ),
        _rule(
            TAM_BASIC,
            B_NOTIFY_HOME,
            f"{TAM_PAPER} §3.2",
            "notifications are sent by the home the publication was routed to, for "
            "subscriptions stored there under that key",
        ),
        _rule(
            TAM_BASIC,
            B_NOTIFY_MATCH,
            f"{TAM_PAPER} §3.2, §3.6",
            "the home notifies only fully matching subscriptions, at their subscriber, "
            "once per key",
        ),
        _rule(
            TAM_BASIC,
            B_DELIVERED,
            f"{TAM_PAPER} §3.2, §3.6",
            "each subscription receives a matching event once, notified by a home or "
            "matched at its own node as the home",
        ),
    ),
}
