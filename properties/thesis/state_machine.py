"""A Hypothesis RuleBasedStateMachine that drives the reference op by op (subscribe,
unsubscribe, publish, split pressure, lost and delayed LeafNodeUpdateMessages, join, leave,
fail) and checks the invariants after every step, against the oracle:

- no duplicate and no spurious delivery, ever (single delivery; no widening false positive
  leaks through the subscriber's filter);
- once the system is quiescent, no missed delivery (no missed matches under growth-only trees);
- the tree only grows: no tree node ever disappears (thesis §3.2.2);
- depth never exceeds max_depth (bounded tree depth);
- every LeafNodeRoutingTable partitions its node's zone and names existing nodes.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from pubsub_spec.properties.thesis.strategies import CUTOFF, CUTOFF_H, SCHEMA_S, SCHEMA_T, values
from pubsub_spec.reference.common.model import Event, Predicate, Subscription
from pubsub_spec.reference.common.ops import (
    Fail,
    Join,
    Leave,
    Op,
    Publish,
    Subscribe,
    Timing,
    Trace,
    Unsubscribe,
)
from pubsub_spec.reference.common.oracle import expected_deliveries
from pubsub_spec.reference.sim.run import Driver
from pubsub_spec.reference.thesis.config import SECTION, ThesisConfig
from pubsub_spec.reference.thesis.lnrt import is_partition
from pubsub_spec.reference.thesis.system import TwoDTreeSystem

SCHEMAS = (SCHEMA_S, SCHEMA_T)
# Engine items one machine run may process: the reference quiesces after each op within a few
# thousand on these sizes; a mutant whose messages circulate for ever (e.g. probes for a merged
# leaf) is rejected by count, never by time.
ITEM_BUDGET = 200_000


class ReferenceMachine(RuleBasedStateMachine):
    system_class: type[TwoDTreeSystem] = TwoDTreeSystem

    def __init__(self) -> None:
        super().__init__()
        self.ops: list[Op] = []
        self.live: list[str] = []
        self.active: dict[str, Subscription] = {}
        self.nodes_seen: set[tuple[str, str]] = set()
        self.n = 0

    @initialize(
        nodes=st.integers(3, 8),
        cutoff=st.booleans(),
        loss=st.sampled_from([0.0, 0.5]),
        delivery=st.sampled_from(["unicast", "multicast"]),
        matching=st.sampled_from(["strict", "lenient"]),
        seed=st.integers(0, 1000),
    )
    def setup(
        self, nodes: int, cutoff: bool, loss: float, delivery: str, matching: str, seed: int
    ) -> None:
        cfg = ThesisConfig(
            capacity_min=1,
            capacity_max=3,
            max_depth=7,  # odd: the grid allows depth 8, so a missing cap shows
            cutoff=CUTOFF if cutoff else (),
            cutoff_h=CUTOFF_H if cutoff else (),
            leaf_update_loss=loss,
            leaf_update_delay_ms=1000.0 if loss else 0.0,
            delivery="multicast" if delivery == "multicast" else "unicast",
        )
        self.trace = Trace(
            SCHEMAS,
            (),
            nodes,
            "lenient" if matching == "lenient" else "strict",
            seed,
            Timing(sub_interarrival_ms=1.0, pub_interarrival_ms=1.0),
            ((SECTION, cfg),),
        )
        self.cfg = cfg
        # the machine drives the system through the common System interface (reference/sim)
        system = self.system_class.for_trace(self.trace)
        dispatch = system._dispatch
        left = [ITEM_BUDGET]

        def bounded(item: Any) -> str:
            left[0] -= 1
            if left[0] < 0:
                raise AssertionError(
                    f"did not quiesce: more than {ITEM_BUDGET} engine items in one run "
                    "(messages keep circulating)"
                )
            return dispatch(item)

        setattr(system, "_dispatch", bounded)  # noqa: B010 (an instance's method, bounded)
        self.driver = Driver(self.trace, system)
        self.live = [f"n{i}" for i in range(nodes)]
        self.n = nodes

    def _apply(self, op: Op) -> None:
        self.ops.append(op)
        self.driver.apply(op)

    def _seq(self) -> int:
        return len(self.ops) + 1

    @rule(data=st.data())
    def subscribe(self, data: st.DataObject) -> None:
        schema = data.draw(st.sampled_from(SCHEMAS))
        attrs = data.draw(st.lists(st.sampled_from(schema.attributes), min_size=1, unique=True))
        preds = tuple(
            Predicate(a.name, *sorted((data.draw(values(a)), data.draw(values(a))))) for a in attrs
        )
        sub = Subscription(
            f"s{self._seq()}", data.draw(st.sampled_from(self.live)), schema.name, preds
        )
        self.active[sub.id] = sub
        self._apply(Subscribe(self._seq(), sub))

    @rule(data=st.data(), count=st.integers(2, 6))
    def split_pressure(self, data: st.DataObject, count: int) -> None:
        """Identical points on one spot: leaves split until the depth cap."""
        a = SCHEMA_S.attributes[0]
        lo = data.draw(values(a))
        for _ in range(count):
            sub = Subscription(f"s{self._seq()}", self.live[0], "s", (Predicate("a", lo, lo),))
            self.active[sub.id] = sub
            self._apply(Subscribe(self._seq(), sub))

    @rule(data=st.data())
    def publish(self, data: st.DataObject) -> None:
        schema = data.draw(st.sampled_from(SCHEMAS))
        attrs = data.draw(st.lists(st.sampled_from(schema.attributes), min_size=1, unique=True))
        vals = tuple(sorted((a.name, data.draw(values(a))) for a in attrs))
        ev = Event(f"e{self._seq()}", data.draw(st.sampled_from(self.live)), schema.name, vals)
        self._apply(Publish(self._seq(), ev))

    @precondition(lambda self: bool(self.active) and bool(self.cfg.cutoff_h))
    @rule(data=st.data(), i=st.integers(1, 12))
    def publish_on_segment_boundary(self, data: st.DataObject, i: int) -> None:
        """An event matching an active subscription, its base value on l + i*h: a remap
        segment boundary (thesis §3.5, decision D-SEG), where closed segments deliver twice."""
        sub = data.draw(st.sampled_from(sorted(self.active.values(), key=lambda x: x.id)))
        h = dict(self.cfg.cutoff_h)
        schema = next(x for x in SCHEMAS if x.name == sub.schema)
        vals = {p.attribute: p.lo for p in sub.predicates}
        p = data.draw(st.sampled_from(sub.predicates))
        step = h[f"{sub.schema}/{p.attribute}"]
        v = p.lo + i * step
        if schema.by_name[p.attribute].type == "int":
            v = int(v)
        if v <= p.hi:
            vals[p.attribute] = v
        ev = Event(f"e{self._seq()}", self.live[0], sub.schema, tuple(sorted(vals.items())))
        self._apply(Publish(self._seq(), ev))

    @precondition(lambda self: bool(self.active))
    @rule(data=st.data())
    def unsubscribe(self, data: st.DataObject) -> None:
        sid = data.draw(st.sampled_from(sorted(self.active)))
        del self.active[sid]
        self._apply(Unsubscribe(self._seq(), sid))

    @rule()
    def join(self) -> None:
        name = f"n{self.n}"
        self.n += 1
        self.live.append(name)
        self._apply(Join(self._seq(), name))

    @precondition(lambda self: len(self.live) > 3)
    @rule(data=st.data(), crash=st.booleans())
    def leave_or_fail(self, data: st.DataObject, crash: bool) -> None:
        name = data.draw(st.sampled_from(self.live))
        self.live.remove(name)
        for sid in [s for s, x in self.active.items() if x.subscriber == name]:
            del self.active[sid]
        self._apply(Fail(self._seq(), (name,)) if crash else Leave(self._seq(), name))

    @rule()
    def settle(self) -> None:
        """Let everything in flight finish, then nothing may be missing."""
        self.driver.system.run_to_quiescence()
        expected = expected_deliveries(self._trace())
        got = set(self.driver.system.deliveries)
        missed = sorted(set(expected) - got)
        assert not missed, f"missed deliveries: {missed[:5]}"

    def _trace(self) -> Trace:
        return Trace(
            self.trace.schemas,
            tuple(self.ops),
            self.trace.initial_nodes,
            self.trace.matching,
            self.trace.seed,
            self.trace.timing,
            self.trace.sections,
        )

    @invariant()
    def single_and_no_spurious(self) -> None:
        if not self.ops:
            return
        expected = set(expected_deliveries(self._trace()))
        counts = Counter(self.driver.system.deliveries)
        dup = [d for d, c in counts.items() if c > 1]
        spurious = [d for d in counts if d not in expected]
        assert not dup, f"duplicate deliveries: {dup[:5]}"
        assert not spurious, f"spurious deliveries: {spurious[:5]}"

    @invariant()
    def tree_grows_only_and_stays_bounded(self) -> None:
        system = self.driver.system
        nodes = {(n.qattr, n.bits) for n in system.tree_nodes()}
        lost = self.nodes_seen - nodes
        assert not lost, f"tree nodes disappeared: {sorted(lost)[:5]}"
        self.nodes_seen = nodes
        depth = max((len(b) for _, b in nodes), default=0)
        assert depth <= self.cfg.max_depth, f"depth {depth} > max_depth"
        for node in system.tree_nodes():
            if node.lnrt is not None:
                assert is_partition(node.bits, node.lnrt), node.ident
                # a splitting node's own records name children still in creation (D-SPLIT)
                if not node.splitting:
                    assert all((node.qattr, r) in nodes for r in node.lnrt), node.ident
