#!/usr/bin/env python3
"""The protocol fault kit: programs that deliver exactly the right events but do not follow the
protocol they claim (conformance/OBSERVATIONS.md). Over the process protocol version 2
(conformance/PROTOCOL.md) it claims a system (`--system`, default `thesis`), runs that system's
built-in reference in-process, op by op as `reference.sim.run.Driver` does, with an observer set,
and answers with the reference's deliveries (so the delivery level passes) and its observations
as `obs` lines, transformed by one fault (`--fault NAME` or the environment variable
`PUBSUB_PROTOCOL_FAULT`). Each fault breaks one protocol rule and names it (`FAULTS`); the
protocol level must report exactly that rule (tests/test_protocol_faults.py; the catch rate is
printed by benchmarks/bench_protocol_faults.py).

  python protocol_faults.py --system thesis                     the reference: conforms
  python protocol_faults.py --system thesis --fault broadcast   the broadcasting program

(a Python with this package installed, e.g. the checkout's .venv/bin/python). `--fault
broadcast` is the broadcasting program of conformance/README.md ("The protocol fault kit"):
every event is sent by its publisher to every peer. `--list` prints the faults with their
systems and rules.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from pubsub_spec.conformance import traceio
from pubsub_spec.conformance.observed import REFERENCE
from pubsub_spec.conformance.protocol_rules.base import Observed, ObservedRun
from pubsub_spec.reference.common.matching import matches
from pubsub_spec.reference.common.model import Event, Schema, Subscription
from pubsub_spec.reference.common.ops import (
    Fail,
    Join,
    Leave,
    Op,
    Publish,
    Subscribe,
    Trace,
    initial_node_names,
)
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.lbdd.algorithms import bucket_no
from pubsub_spec.reference.registry import SYSTEMS
from pubsub_spec.reference.sim.observe import SEND, STATE, Observation, send, state
from pubsub_spec.reference.sim.run import Driver
from pubsub_spec.reference.sim.system import System, SystemInfo, Variant

ENV = "PUBSUB_PROTOCOL_FAULT"


def builtin_of(claim: str) -> tuple[SystemInfo, Variant]:
    """The registry entry and variant of the reference built-in of a claimed system."""
    name = REFERENCE[claim]
    for info in SYSTEMS.values():
        for v in info.variants:
            if v.builtin == name:
                return info, v
    raise KeyError(f"no built-in {name!r} for the claim {claim!r}")


# -- the faults ---------------------------------------------------------------------------------
class Transform:
    """One fault: it rewrites the observations reported under each op (`batch`, in order; the
    op being applied is `run.op`, None at the end); state across batches is its own."""

    def __init__(self, run: FaultedRun) -> None:
        self.run = run

    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        return obs


@dataclass(frozen=True)
class Fault:
    name: str
    system: str  # the system it claims
    rule: str  # the rule that must catch it
    doc: str
    transform: Callable[[FaultedRun], Transform]


FAULTS: dict[str, Fault] = {}


def fault(
    name: str, system: str, rule: str, doc: str
) -> Callable[[type[Transform]], type[Transform]]:
    def register(cls: type[Transform]) -> type[Transform]:
        FAULTS[name] = Fault(name, system, rule, doc, cls)
        return cls

    return register


# -- generic ------------------------------------------------------------------------------------
@fault("silent", "thesis", "generic/reported",
       "claims the thesis system but reports no observation (a brute-force matcher)")  # fmt: skip
class Silent(Transform):
    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        return []


@fault("undeclared-type", "thesis", "generic/declared-types",
       "reports its first probe under a message type the thesis does not declare")  # fmt: skip
class UndeclaredType(Transform):
    done = False

    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        out = []
        for o in obs:
            if not self.done and o.kind == SEND:
                self.done = True
                o = replace(o, name="Gossip")
            out.append(o)
        return out


@fault("broadcast", "thesis", "generic/cost-envelope",
       "the broadcasting program: a subscription stays at its subscriber, every event is sent "
       "by its publisher to every other peer, which matches it locally")  # fmt: skip
class Broadcast(Transform):
    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        out: list[Observation] = []
        op = self.run.op
        if isinstance(op, Subscribe) and op.seq == seq:
            out.append(state("store", op.sub.subscriber, sub=op.sub.id))
        elif isinstance(op, Publish) and op.seq == seq:
            src = op.event.publisher
            for n in self.run.live:
                if n != src:
                    fields: dict[str, Any] = {"strategy": "broadcast", "origin": src, "hops": 1}
                    out.append(send("EventDelivery", src, n, event=op.event.id, **fields))
        return out


MATCHER = "n0"  # the central matcher: an initial peer of every trace


@fault("central-matcher", "thesis", "generic/cost-envelope",
       "one central matcher: every subscription is stored at n0 and every event sent there, "
       "which sends it to each subscriber it matches")  # fmt: skip
class CentralMatcher(Transform):
    def __init__(self, run: FaultedRun) -> None:
        super().__init__(run)
        self.probed: set[str] = set()

    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        out: list[Observation] = []
        op = self.run.op
        if isinstance(op, Subscribe) and op.seq == seq:
            out.append(send("InsertSub", op.sub.subscriber, MATCHER, sub=op.sub.id, hops=1))
            out.append(state("store", MATCHER, sub=op.sub.id))
        for o in obs:  # the event reaches the matcher once, then each matching subscriber
            if o.kind != SEND or o.event is None:
                continue
            if o.event not in self.probed:
                self.probed.add(o.event)
                event = self.run.events.get(o.event)
                publisher = MATCHER if event is None else event.publisher
                out.append(send("ProbePub", publisher, MATCHER, event=o.event, hops=1))
            if o.name == "EventDelivery":
                out.append(replace(o, node=MATCHER, fields={**o.fields, "origin": MATCHER}))
        return out


# -- the event-delivery trees of LBDD (LBDD §3.2-§3.5) -------------------------------------------
def _tree_key(o: Observation) -> tuple[str, str] | None:
    if o.kind == SEND and o.name == "EventDelivery" and o.event is not None:
        origin = o.fields.get("origin")
        if isinstance(origin, str):
            return (o.event, origin)
    return None


@fault("lbdd-wrong-bucket", "lbdd", "lbdd/tree-edge",
       "the origin sends a copy straight to a node of a farther bucket instead of its parent "
       "in the bucket before it (LBDD Algorithm 2)")  # fmt: skip
class LbddWrongBucket(Transform):
    done = False

    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        out = []
        for o in obs:
            key = _tree_key(o)
            if not self.done and key is not None and o.node != key[1]:
                self.done = True
                o = replace(o, node=key[1])
            out.append(o)
        return out


@fault("lbdd-cycle", "lbdd", "lbdd/tree",
       "a member forwards its copy back to the member it came from: a forwarding cycle "
       "(LBDD §3.5.1)")  # fmt: skip
class LbddCycle(Transform):
    done = False

    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        out = []
        for o in obs:
            out.append(o)
            key = _tree_key(o)
            if not self.done and key is not None and o.to is not None and o.node != key[1]:
                self.done = True  # a member's copy goes back to the member it came from
                out.append(replace(o, node=o.to, to=o.node))
        return out


def _deeper(origin: str, members: list[str]) -> bool:
    """A chain through `members` is deeper than LBDD's bound: the number of non-empty buckets
    among them relative to the origin (LBDD §3.5.2)."""
    return len({bucket_no(origin, m) for m in members}) < len(members)


@fault("lbdd-depth", "lbdd", "lbdd/depth",
       "an event's tree is a chain through all its members, deeper than the buckets allow "
       "(LBDD §3.5.2)")  # fmt: skip
class LbddDepth(Transform):
    def __init__(self, run: FaultedRun) -> None:
        super().__init__(run)
        self.chained: set[tuple[str, str]] = set()
        self.done = False

    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        out = []
        for o in obs:
            key = _tree_key(o)
            if key is None:
                out.append(o)
                continue
            if key in self.chained:
                continue  # replaced by the chain
            members = o.fields.get("members")
            if not self.done and isinstance(members, list) and _deeper(key[1], members):
                self.done = True
                self.chained.add(key)
                path = [key[1], *members]
                out.extend(replace(o, node=a, to=b) for a, b in itertools.pairwise(path))
                continue
            out.append(o)
        return out


@fault("lbdd-duplicate", "lbdd", "lbdd/tree",
       "a node forwards the same copy twice; the subscriber's dedup hides it from the "
       "deliveries (LBDD §3.5.1: each member receives the event once)")  # fmt: skip
class LbddDuplicate(Transform):
    done = False

    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        out = []
        for o in obs:
            out.append(o)
            if not self.done and _tree_key(o) is not None:
                self.done = True
                out.append(o)
        return out


# -- the 2d-tree of the thesis (thesis §3.2-§3.5) -----------------------------------------------
def _is(o: Observation, kind: str, name: str) -> bool:
    return o.kind == kind and o.name == name


@fault("merged-leaves", "thesis", "thesis/growth-only",
       "two sibling leaves merge back into their parent zone, which later splits again "
       "(thesis §3.2.2: zones only split)")  # fmt: skip
class MergedLeaves(Transform):
    def __init__(self, run: FaultedRun) -> None:
        super().__init__(run)
        self.first: tuple[int, Observation] | None = None
        self.done = False

    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        out: list[Observation] = []
        if self.first is not None and not self.done and seq > self.first[0]:
            self.done = True  # the re-split of the merged zone, an op later
            out.append(self.first[1])
        for o in obs:
            out.append(o)
            if self.first is None and _is(o, STATE, "split"):
                self.first = (seq, o)
        return out


@fault("skipped-leaf-update", "thesis", "thesis/leaf-update-after-split",
       "the first non-root node that splits never sends its LeafUpdate up the tree "
       "(thesis §3.2.2, Program 3.1)")  # fmt: skip
class SkippedLeafUpdate(Transform):
    def __init__(self, run: FaultedRun) -> None:
        super().__init__(run)
        self.node: tuple[Any, Any] | None = None

    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        out: list[Observation] = []
        for o in obs:
            f = o.fields
            if self.node is None and _is(o, STATE, "split") and f.get("bits"):
                self.node = (f.get("tree"), f.get("bits"))
            if _is(o, SEND, "LeafUpdate") and (f.get("tree"), f.get("split")) == self.node:
                continue  # not sent
            if _is(o, STATE, "lnrt") and (f.get("tree"), f.get("split")) == self.node:
                continue  # hence never applied
            out.append(o)
        return out


@fault("depth-overflow", "thesis", "thesis/depth",
       "a leaf keeps splitting past the maximum depth D of the trace's configuration "
       "(thesis §3.2.2; TwoDTree BoundedDepth)")  # fmt: skip
class DepthOverflow(Transform):
    def __init__(self, run: FaultedRun) -> None:
        super().__init__(run)
        self.split: list[Observation] = []
        self.leaves: dict[tuple[Any, Any], None] = {}

    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        for o in obs:
            f = o.fields
            if _is(o, STATE, "split"):
                self.split.append(o)
                self.leaves.pop((f.get("tree"), f.get("bits")), None)
                for child in f.get("children") or ():
                    self.leaves[(f.get("tree"), child)] = None
        if self.run.op is not None or not self.split:
            return obs
        # the run has settled: the deepest leaf splits on, down past the bound
        from pubsub_spec.reference.thesis.config import config_of

        bound = config_of(self.run.trace).max_depth
        tree, bits = max(self.leaves, key=lambda k: len(str(k[1])))
        bits = str(bits)
        host = self.split[-1].node
        chain = []
        while len(bits) <= bound:
            children = [bits + "0", bits + "1"]
            chain.append(state("split", host, tree=tree, bits=bits, children=children))
            bits += "0"
        return [*obs, *chain]


def _target_miss(attr_lo: float, attr_hi: float, v: float) -> str:
    """A 2d-tree zone (thesis §3.2.1: depth 0 halves x, depth 1 halves y; 0 the lower half)
    that does not meet the target area [min, v] x [v, max] of value v (thesis §3.2, Fig. 3.1):
    the upper half in x when v lies below the middle, else the lower quarter in y."""
    return "1" if v < (attr_lo + attr_hi) / 2 else "00"


@fault("probe-non-overlap", "thesis", "thesis/probe-overlap",
       "one region probe goes to a zone that does not overlap the event's target area "
       "(thesis §3.4.1, Program 3.3)")  # fmt: skip
class ProbeNonOverlap(Transform):
    done = False

    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        out = []
        for o in obs:
            if not self.done and _is(o, SEND, "ProbePub") and o.event is not None:
                schema, _, attr = str(o.fields.get("tree")).partition("/")
                event = self.run.events.get(o.event)
                v = None if event is None else event.value(attr)
                a = self.run.trace.schema_map[schema].by_name.get(attr)
                if v is not None and a is not None:
                    self.done = True
                    bits = _target_miss(float(a.min), float(a.max), float(v))
                    o = replace(o, fields={**o.fields, "bits": bits})
            out.append(o)
        return out


@fault("duplicate-delivery", "thesis", "thesis/delivery-tree",
       "a leaf sends one subscriber's copy of an event twice; the subscriber drops the second "
       "(dedup hides it from the deliveries; thesis §3.4.3: one copy per subscriber)")  # fmt: skip
class DuplicateDelivery(Transform):
    done = False

    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        out = []
        for o in obs:
            out.append(o)
            if not self.done and _is(o, SEND, "EventDelivery"):
                self.done = True
                out.append(o)
        return out


# -- Scribe trees of Tam et al. (Tam §3.3; Scribe §2.2) -----------------------------------------
@fault("scribe-join-continues", "tam", "tam/join-stops",
       "a node already in a key's tree sends another JOIN toward the root when it registers "
       "one more subscription on the key (Scribe §2.2.1: a JOIN stops at the first node in the "
       "tree, here the node itself)")  # fmt: skip
class ScribeJoinContinues(Transform):
    def __init__(self, run: FaultedRun) -> None:
        super().__init__(run)
        self.parent: dict[tuple[Any, str], str] = {}
        self.done = False

    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        out: list[Observation] = []
        for o in obs:
            key = o.fields.get("key")
            if not self.done and _is(o, STATE, "tam-register"):
                up = self.parent.get((key, o.node))
                if up is not None:
                    self.done = True
                    out.append(send("ScribeJoin", o.node, up, key=key, origin=o.node, repair=False))
            out.append(o)
            if _is(o, STATE, "scribe-parent"):
                self.parent[(key, o.node)] = str(o.fields.get("parent"))
            elif _is(o, STATE, "scribe-left"):
                self.parent.pop((key, o.node), None)
        return out


# -- Kyra and multicast groups (Cao & Singh §II.B, §III) ----------------------------------------
@fault("kyra-non-covering-tree", "kyra", "kyra/covering-tree",
       "an event is routed from the covering clique member along another tree it belongs to, "
       "whose zone does not cover the event (Kyra §III: routed on the covering tree)")  # fmt: skip
class KyraNonCoveringTree(Transform):
    def __init__(self, run: FaultedRun) -> None:
        super().__init__(run)
        self.adj: dict[str, dict[str, list[str]]] = {}  # tree -> node -> neighbours
        self.event: str | None = None

    def _other_tree(self, node: str, tree: str) -> str | None:
        schema = tree.partition("/")[0]
        for t, adj in sorted(self.adj.items()):
            if t != tree and t.partition("/")[0] == schema and node in adj:
                return t
        return None

    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        out: list[Observation] = []
        for o in obs:
            if _is(o, STATE, "tree-join"):
                nbrs = o.fields.get("neighbours")
                self.adj.setdefault(str(o.fields.get("tree")), {})[o.node] = list(nbrs or [])
            if _is(o, SEND, "EventRoute") and o.event is not None:
                if o.event == self.event:
                    continue  # replaced by the route on the other tree
                other = self._other_tree(o.node, str(o.fields.get("tree")))
                if self.event is None and other is not None:
                    self.event = o.event
                    out.extend(self._route(o, other))
                    continue
            out.append(o)
        return out

    def _route(self, first: Observation, tree: str) -> list[Observation]:
        """Breadth first over `tree` from the covering member: one copy per member."""
        adj, seen, todo, out = self.adj[tree], {first.node}, [first.node], []
        while todo:
            here = todo.pop(0)
            for n in adj.get(here, []):
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
                    fields = {**first.fields, "tree": tree}
                    out.append(replace(first, node=here, to=n, fields=fields))
        return out


@fault("mcgroups-wrong-group", "mcgroups", "mcgroups/event-group",
       "one event is multicast as a member of a group whose cell does not contain it "
       "(Cao & Singh §II.B: an event is mapped into its group)")  # fmt: skip
class McGroupsWrongGroup(Transform):
    event: str | None = None

    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        out = []
        for o in obs:
            g = o.fields.get("group")
            if o.kind == SEND and o.event is not None and isinstance(g, int):
                if self.event is None:
                    self.event = o.event
                if o.event == self.event:
                    o = replace(o, fields={**o.fields, "group": g + 1})
            out.append(o)
        return out


@fault("siena-flood", "siena", "siena/reverse-path",
       "a publisher also forwards its event to a neighbour from whose direction no matching "
       "subscription came (Cao & Singh §II.A: only toward matching directions)")  # fmt: skip
class SienaFlood(Transform):
    def __init__(self, run: FaultedRun) -> None:
        super().__init__(run)
        self.neighbours: dict[str, list[str]] = {}
        self.came: dict[tuple[str, str], list[str]] = {}  # (server, direction) -> sub ids
        self.done = False

    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        out: list[Observation] = []
        for o in obs:
            if _is(o, STATE, "neighbours"):
                self.neighbours[o.node] = list(o.fields.get("neighbours") or [])
            elif _is(o, SEND, "SubPropagate") and o.to is not None and o.sub is not None:
                self.came.setdefault((o.to, o.node), []).append(o.sub)
        op = self.run.op
        if not self.done and isinstance(op, Publish) and op.seq == seq:
            e, mode = op.event, self.run.trace.matching
            for n in self.neighbours.get(e.publisher, []):
                subs = (self.run.subs.get(s) for s in self.came.get((e.publisher, n), []))
                if not any(s is not None and matches(s, e, mode) for s in subs):
                    self.done = True  # no matching subscription that way: a flooded copy
                    out.append(send("EventRoute", e.publisher, n, event=e.id))
                    break
        return [*out, *obs]


# -- OctopiA over SCOT (Shafique §III-B, §VI) ---------------------------------------------------
def _broker(name: str) -> tuple[str, int] | None:
    """A SCOT broker's label `B(x,i)` as (region x, cluster i) (conformance/OBSERVATIONS.md)."""
    if name.startswith("B(") and name.endswith(")") and "," in name:
        x, _, i = name[2:-1].rpartition(",")
        if i.isdigit():
            return x, int(i)
    return None


@fault("octopia-sub-leaves-cluster", "octopia-snr", "octopia/sub-in-host-cluster",
       "a subscription's broadcast also crosses an iLink into another cluster (Shafique §VI: "
       "broadcast over the aLinks of the subscriber's host cluster only)")  # fmt: skip
class OctopiaSubLeavesCluster(Transform):
    def __init__(self, run: FaultedRun) -> None:
        super().__init__(run)
        self.clusters: set[int] = set()
        self.done = False

    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        out: list[Observation] = []
        for o in obs:
            out.append(o)
            for name in (o.node, o.to or ""):
                b = _broker(name)
                if b is not None:
                    self.clusters.add(b[1])
            if not self.done and _is(o, SEND, "Subscription"):
                here = _broker(o.node)
                others = sorted(self.clusters - {here[1]}) if here is not None else []
                if here is not None and others:
                    self.done = True  # the same region in another cluster: an iLink (§III-B)
                    far = f"B({here[0]},{others[0]})"
                    out.append(replace(o, to=far, fields={**o.fields, "link": "ilink"}))
        return out


@fault("tid-wrong-tid", "tid", "tid/notification-tid",
       "a broker forwards one copy of a notification under another advertisement's TID "
       "(TID routing, Shafique §II: a notification carries its advertisement's TID)")  # fmt: skip
class TidWrongTid(Transform):
    def __init__(self, run: FaultedRun) -> None:
        super().__init__(run)
        self.tids: set[str] = set()
        self.first: dict[str, str] = {}  # event -> the TID of its first copy
        self.done = False

    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        out = []
        for o in obs:
            tid = o.fields.get("tid")
            if isinstance(tid, str):
                self.tids.add(tid)
            if not self.done and _is(o, SEND, "Notification") and isinstance(tid, str):
                event = str(o.event)
                others = sorted(self.tids - {self.first.get(event, tid)})
                if event in self.first and others:
                    self.done = True  # a later copy, under a TID other than the first one's
                    o = replace(o, fields={**o.fields, "tid": others[0]})
                self.first.setdefault(event, tid)
            out.append(o)
        return out


@fault("tam-basic-stored-off-home", "tam-basic", "tam-basic/stored-at-home",
       "a subscriber keeps its subscription itself instead of storing it at its key's home "
       "(Tam §3.2: stored at the home node of the key)")  # fmt: skip
class TamBasicStoredOffHome(Transform):
    done = False

    def batch(self, seq: int, obs: list[Observation]) -> list[Observation]:
        out = []
        for o in obs:
            if not self.done and _is(o, STATE, "tam-store") and o.sub in self.run.subs:
                subscriber = self.run.subs[o.sub].subscriber
                if subscriber != o.node:
                    self.done = True
                    o = replace(o, node=subscriber)
            out.append(o)
        return out


# -- the program --------------------------------------------------------------------------------
def trace_of_init(init: dict[str, Any]) -> Trace:
    """The trace header an `init` request carries, as a trace without ops (config v2 when it
    has per-system sections, else v1: conformance/FORMAT.md, "Versions")."""
    config = init.get("config", {})
    header = {
        "format": traceio.FORMAT,
        "version": 2 if "systems" in config else 1,
        "trace_id": init.get("trace_id") or "trace",
        "seed": int(init.get("seed", 0)),
        "generator": "process",
        "schemas": init["schemas"],
        "semantics": init["semantics"],
        "config": config,
    }
    return traceio.parse_trace_lines([json.dumps(header)], "init")


def op_of(message: dict[str, Any], schemas: dict[str, Schema]) -> Op:
    """One `op` request as the trace op it carries."""
    return traceio._op(message, schemas)


@dataclass
class FaultedRun:
    """A built-in reference run op by op with an observer, its observations rewritten by one
    fault. `apply` returns the observations reported under the op and the deliveries made so
    far and not yet returned; `finish` the rest."""

    claim: str
    fault: Fault | None
    trace: Trace
    system: System[Any] = field(init=False)
    driver: Driver[System[Any]] = field(init=False)
    live: list[str] = field(init=False)
    transform: Transform = field(init=False)
    pending: list[Observation] = field(default_factory=list)
    delivered: int = 0
    seq: int = 0
    op: Op | None = None  # the op being applied (None before the first and after the last)
    events: dict[str, Event] = field(default_factory=dict)  # the events published so far
    subs: dict[str, Subscription] = field(default_factory=dict)  # the subscriptions so far

    def __post_init__(self) -> None:
        _, variant = builtin_of(self.claim)
        self.system = variant.make(self.trace)
        self.system.observer = self.pending.append
        self.driver = Driver(self.trace, self.system)
        self.live = list(initial_node_names(self.trace.initial_nodes))
        self.transform = self.fault.transform(self) if self.fault else Transform(self)

    def take(self) -> tuple[list[Observation], list[Delivery]]:
        obs = self.transform.batch(self.seq, self.pending[:])
        self.pending.clear()
        new = self.system.deliveries[self.delivered :]
        self.delivered += len(new)
        return obs, list(new)

    def apply(self, op: Op) -> tuple[list[Observation], list[Delivery]]:
        self.seq, self.op = op.seq, op
        if isinstance(op, Publish):
            self.events[op.event.id] = op.event
        elif isinstance(op, Subscribe):
            self.subs[op.sub.id] = op.sub
        self.driver.apply(op)
        if isinstance(op, Join):
            self.live.append(op.node)
        elif isinstance(op, Leave):
            self.live.remove(op.node)
        elif isinstance(op, Fail):
            self.live = [n for n in self.live if n not in op.nodes]
        return self.take()

    def finish(self) -> tuple[list[Observation], list[Delivery]]:
        self.op = None
        self.driver.finish()
        return self.take()


Step = tuple[int, list[Observation], list[Delivery]]


def run_all(claim: str, fault: Fault | None, trace: Trace) -> Iterator[Step]:
    """The whole trace in-process: before the first op (seq 0), per op and once more at the
    end (under the last op's seq), the observations reported under it and the deliveries it
    made."""
    run = FaultedRun(claim, fault, trace)
    obs, got = run.take()
    yield 0, obs, got
    for op in trace.ops:
        obs, got = run.apply(op)
        yield op.seq, obs, got
    obs, got = run.finish()
    yield run.seq, obs, got


# The default `conform` generators whose traces each claimed system can run over the process
# protocol: OctopiA and TID need the explicit advertisements of the stock workload (the implicit
# ones, decision O-IMPLICIT, are derived from the whole trace, which a program sees op by op);
# Kyra, its baselines and Tam have no churn, and Tam matches strictly only.
GENERATORS_OF: dict[str, tuple[str, ...]] = {
    "thesis": ("uniform", "boundaries", "churn"),
    "lbdd": ("uniform", "boundaries", "churn"),  # trees of several members in one bucket
    **{name: ("uniform", "zipf") for name in ("kyra", "siena", "mcgroups", "tam", "tam-basic")},
    **{name: ("octopia-stock",) for name in ("octopia-snr", "octopia-idr", "tid")},
}


def traces_for(claim: str, count: int = 2, profile: str = "small", seed: int = 1) -> list[Trace]:
    """`count` traces of each generator that fits `claim` (`conform`'s seed and profile)."""
    from pubsub_spec.conformance.generators import GENERATORS

    return [GENERATORS[g](seed, i, profile) for g in GENERATORS_OF[claim] for i in range(count)]


def observed_run(claim: str, fault: Fault | None, trace: Trace) -> ObservedRun:
    """What the program reports on `trace`, in-process: its observations (each under the op
    it was reported under) and its deliveries, as the protocol rules read them."""
    log: list[Observed] = []
    deliveries: list[Delivery] = []
    for seq, obs, got in run_all(claim, fault, trace):
        log.extend(Observed(seq, o) for o in obs)
        deliveries.extend(got)
    return ObservedRun(claim, trace, log, deliveries)


def _out(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n")


def _obs_line(seq: int, o: Observation) -> dict[str, Any]:
    return {"type": "obs", "seq": seq, **o.to_json()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--system", choices=sorted(REFERENCE), default=None,
                    help="the system claimed (default: the fault's own, else thesis)")  # fmt: skip
    ap.add_argument("--fault", choices=sorted(FAULTS), default=None)
    ap.add_argument("--list", action="store_true", help="print the faults and exit")
    args = ap.parse_args(argv)
    if args.list:
        for f in FAULTS.values():
            print(f"{f.name:24} {f.system:12} {f.rule:36} {f.doc}")
        return 0
    name = args.fault or os.environ.get(ENV) or None
    if name is not None and name not in FAULTS:
        print(f"protocol_faults: unknown fault {name!r}", file=sys.stderr)
        return 2
    chosen = FAULTS[name] if name else None
    claim = args.system or (chosen.system if chosen else "thesis")
    run: FaultedRun | None = None
    schemas: dict[str, Schema] = {}
    for line in sys.stdin:
        if not line.strip():
            continue
        m = json.loads(line)
        if m["type"] == "init":
            trace = trace_of_init(m)
            schemas = dict(trace.schema_map)
            info, _ = builtin_of(claim)
            _out({"type": "init_ok", "features": sorted(info.features), "protocol": 2,
                  "system": claim, "name": f"protocol-faults:{name or 'none'}"})  # fmt: skip
            sys.stdout.flush()  # a trace needing a feature it lacks ends here (skipped)
            run = FaultedRun(claim, chosen, trace)
            obs, _ = run.take()  # the state built before the first op (seq 0)
            for o in obs:
                _out(_obs_line(0, o))
        elif m["type"] == "op" and run is not None:
            obs, got = run.apply(op_of(m, schemas))
            for o in obs:
                _out(_obs_line(m["seq"], o))
            for d in got:
                _out({"type": "deliver", "event": d.event_id, "sub": d.sub_id})
            _out({"type": "ack", "seq": m["seq"]})
        elif m["type"] == "end":
            if run is not None:
                obs, got = run.finish()
                for o in obs:
                    _out(_obs_line(run.seq, o))
                for d in got:
                    _out({"type": "deliver", "event": d.event_id, "sub": d.sub_id})
            _out({"type": "end_ok"})
            sys.stdout.flush()
            return 0
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
