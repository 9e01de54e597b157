"""The generic protocol rules (conformance/OBSERVATIONS.md, "Generic rules"), applied to every
claimed system before its family's rules: declared message types and state changes, a claim
that reports something, and the cost envelope against the reference's run of the same trace;
and `per_event_tree`, the helper of the families' per-event forwarding-tree rules.

What a family declares reaches this module through `protocol_rules/__init__.py`
(`DISSEMINATION`, `SUBSCRIPTION`, `STATES`), never through a system's handlers; the message
types are the system's registry entry (`SystemInfo.message_types`), the vocabulary it counts
its messages in."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from pubsub_spec.conformance.protocol_rules.base import (
    Cost,
    Deviation,
    Observed,
    ObservedRun,
    Rule,
)
from pubsub_spec.reference.common.ops import Publish, Subscribe
from pubsub_spec.reference.sim.observe import SEND, STATE

# The cost envelope (OBSERVATIONS.md, "The cost envelope"): each of messages and hops per
# publish and per subscribe must lie in [reference / FACTOR, reference * FACTOR + SLACK].
FACTOR = 4.0
SLACK = 2.0


def _message_types(system: str) -> frozenset[str]:
    """The message types the claimed system declares (`pubsub-spec systems`): `thesis` and
    `lbdd` are the thesis system's (LBDD is its delivery strategy, decision D-OBS-LBDD)."""
    from pubsub_spec.reference.registry import SYSTEMS

    info = SYSTEMS["thesis" if system == "lbdd" else system]
    return frozenset(m.name for m in info.message_types)


def _declared_types(run: ObservedRun, reference: ObservedRun) -> Deviation | None:
    # conformance/OBSERVATIONS.md, "Generic rules": one vocabulary per system, the one its
    # registry entry declares (and its family section documents)
    from pubsub_spec.conformance.protocol_rules import STATES

    sends = _message_types(run.system)
    states = STATES.get(run.system)
    if run.system == "lbdd" and "thesis" in STATES:  # the thesis' vocabulary (D-OBS-LBDD)
        states = STATES["thesis"] | (states or frozenset())
    for i, o in enumerate(run.log):
        if o.obs.kind == SEND and o.obs.name not in sends:
            return DECLARED_TYPES.deviation(
                i, f"message type {o.obs.name!r} is not one {run.system} declares "
                f"({', '.join(sorted(sends))})",
            )  # fmt: skip
        if o.obs.kind == STATE and states is not None and o.obs.name not in states:
            return DECLARED_TYPES.deviation(
                i, f"state change {o.obs.name!r} is not one {run.system} declares "
                f"({', '.join(sorted(states))})",
            )  # fmt: skip
    return None


def _reported(run: ObservedRun, reference: ObservedRun) -> Deviation | None:
    # conformance/OBSERVATIONS.md, "Generic rules": a claim is a promise to report
    if run.log or not any(isinstance(op, Publish) for op in run.trace.ops):
        return None
    return REPORTED.deviation(
        None, f"claims {run.system} but reported no observation on a trace with a publish"
    )


def _hops(o: Observed) -> int:
    value = o.obs.fields.get("hops")
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 1


def charge(run: ObservedRun, o: Observed, kinds: Mapping[int, str]) -> str | None:
    """What a send is charged to: "publish", "subscribe" or None (OBSERVATIONS.md, "The cost
    envelope"): by its message type when the family declares its dissemination and subscription
    types, else by what it carries (an event: publish; a subscription only: subscribe), else by
    the kind of op it was reported under."""
    from pubsub_spec.conformance.protocol_rules import DISSEMINATION, SUBSCRIPTION

    dissemination = DISSEMINATION.get(run.system)
    subscription = SUBSCRIPTION.get(run.system)
    if dissemination is not None or subscription is not None:
        if dissemination is not None and o.obs.name in dissemination:
            return "publish"
        if subscription is not None and o.obs.name in subscription:
            return "subscribe"
        return None
    if o.obs.event is not None:
        return "publish"
    if o.obs.sub is not None:
        return "subscribe"
    return kinds.get(o.seq)


def cost(run: ObservedRun) -> Cost:
    """The run's totals: `run.totals` when given, else counted over its log (once per run:
    the cost envelope reads a reference judged against itself twice)."""
    if run.totals is not None:
        return run.totals
    if _last_cost and _last_cost[0][0] is run:
        return _last_cost[0][1]
    got = _count(run)
    _last_cost[:] = [(run, got)]
    return got


# the last run counted (one entry, so `is` cannot match another object)
_last_cost: list[tuple[ObservedRun, Cost]] = []


def _count(run: ObservedRun) -> Cost:
    kinds: dict[int, str] = {}
    publishes = subscribes = 0
    for op in run.trace.ops:
        if isinstance(op, Publish):
            kinds[op.seq] = "publish"
            publishes += 1
        elif isinstance(op, Subscribe):
            kinds[op.seq] = "subscribe"
            subscribes += 1
    pm = ph = sm = sh = 0
    for o in run.log:
        if o.obs.kind != SEND:
            continue
        what = charge(run, o, kinds)
        if what == "publish":
            pm, ph = pm + 1, ph + _hops(o)
        elif what == "subscribe":
            sm, sh = sm + 1, sh + _hops(o)
    return Cost(pm, ph, sm, sh, publishes, subscribes)


def envelope(ref: float) -> tuple[float, float]:
    """The admissible range of a per-op cost given the reference's."""
    return ref / FACTOR, ref * FACTOR + SLACK


def _cost_envelope(run: ObservedRun, reference: ObservedRun) -> Deviation | None:
    # conformance/OBSERVATIONS.md, "The cost envelope": flooding and a central matcher cost
    # a multiple of the papers' dissemination (thesis §4.2, Cao & Singh §IV, Shafique §6,
    # Tam et al. §4 measure messages and hops per publish and per subscription)
    mine, ref = cost(run), cost(reference)
    rows = (
        ("messages per publish", mine.publish_messages, ref.publish_messages, mine.publishes),
        ("hops per publish", mine.publish_hops, ref.publish_hops, mine.publishes),
        ("messages per subscribe", mine.subscribe_messages, ref.subscribe_messages,
         mine.subscribes),
        ("hops per subscribe", mine.subscribe_hops, ref.subscribe_hops, mine.subscribes),
    )  # fmt: skip
    for what, got_total, ref_total, ops in rows:
        if ops == 0:
            continue
        got, want = got_total / ops, ref_total / ops
        lo, hi = envelope(want)
        if not lo <= got <= hi:
            side = "above" if got > hi else "below"
            return COST_ENVELOPE.deviation(
                None, f"{what} {got:.2f} is {side} the envelope [{lo:.2f}, {hi:.2f}] around "
                f"the reference's {want:.2f} (factor {FACTOR:g}, slack {SLACK:g}): "
                "not the protocol",
            )  # fmt: skip
    return None


def _too_many(run: ObservedRun, reference: ObservedRun) -> Deviation | None:
    return None  # judged by conformance/observed.py from the adapter's flag (the log is cut)


GENERIC_SOURCE = "conformance/OBSERVATIONS.md, Generic rules"
TOO_MANY_OBSERVATIONS = Rule(
    "limits/too-many-observations", "conformance/OBSERVATIONS.md, Limits",
    "at most 10^7 observations per trace", _too_many,
)  # fmt: skip
DECLARED_TYPES = Rule(
    "generic/declared-types", GENERIC_SOURCE,
    "every send names a message type the claimed system declares, every state change a state "
    "its family declares", _declared_types,
)  # fmt: skip
REPORTED = Rule(
    "generic/reported", GENERIC_SOURCE,
    "a program claiming a system reports observations on a trace with a publish", _reported,
)  # fmt: skip
COST_ENVELOPE = Rule(
    "generic/cost-envelope", "conformance/OBSERVATIONS.md, The cost envelope",
    "messages and hops per publish and per subscribe within a factor of the reference's on "
    "the same trace", _cost_envelope,
)  # fmt: skip

# in the order applied (before the family's rules)
RULES: tuple[Rule, ...] = (DECLARED_TYPES, REPORTED, COST_ENVELOPE)


@dataclass(frozen=True)
class TreeBreak:
    """Where an event's forwarding stops being a tree: the observation's index in the log, the
    event, the node, and "twice" (the node received a second copy) or "cycle" (the send goes
    back to a node that already forwarded the event, closing a loop)."""

    index: int
    event: str
    node: str
    how: str


def per_event_tree(
    run: ObservedRun,
    message_types: Collection[str],
    key: Callable[[Observed], str | None] | None = None,
) -> TreeBreak | None:
    """The first send of one of `message_types` at which an event's forwarding edges stop
    forming a tree: its receiver already received the event (a second copy) or already sent it
    on (a cycle through an earlier sender, the root included). `key` groups sends (default: the
    observation's event; a family may key by event and tree id). Families add the root the
    paper prescribes."""
    received: dict[str, set[str]] = {}
    senders: dict[str, set[str]] = {}
    for i, o in enumerate(run.log):
        obs = o.obs
        if obs.kind != SEND or obs.name not in message_types or obs.to is None:
            continue
        k = key(o) if key is not None else obs.event
        if k is None:
            continue
        got, sent = received.setdefault(k, set()), senders.setdefault(k, set())
        if obs.to in got:
            return TreeBreak(i, k, obs.to, "twice")
        if obs.to in sent or obs.to == obs.node:
            return TreeBreak(i, k, obs.to, "cycle")
        got.add(obs.to)
        sent.add(obs.node)
    return None
