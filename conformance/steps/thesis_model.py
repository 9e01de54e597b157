"""Model-derived step vectors of the thesis system (docs/steps.md, "Model-derived vectors"):
every distinct (state, action) pair of the TLA+ models spec/thesis/MCTwoDTree.tla and
spec/thesis/MCCutoffRemap.tla at a small bound whose action is one handler call of one peer
becomes a step vector, and is a check of the model against the reference's handler.

TwoDTree (thesis §3.2-§3.4, Programs 3.1-3.3, decision D-SPLIT). The abstraction map of
properties/thesis/tree_trace.py, read backwards at the depth D of a bound (`TREE_BOUNDS`: 2
or 3; the grid has K = ceil(D / 2) bits per axis, and the model's D + 1 bit cells are the
reference's 2K bit point paths followed by bits no node at depth <= D reads; at D = 3 the
trace validation's map exactly): one schema `s` with one int attribute `b` in 0..2^K whose
values 0..2^K - 1 are the grid cells; model node <<level, index>> is the tree node whose bits
are `index` in `level` binary digits; subscription i is `s<i>` of subscriber `sub-<i>`, a
range [x, y] whose point path (x and y bits interleaved) begins Pt[i] (a point on or above the
diagonal: x <= y); event j is `e<j>` with the value v whose target area [min, v] x [v, max]
(§3.2, Fig. 3.1) covers exactly the cells of Region[j]. A tree node's home is the peer
`home-<bits>` (the root's `home-root`): the pre-state is the home of the node the message is
addressed to,
hosting that node when it exists (its LeafNodeRoutingTable lnrt[n], its points store[n], its
processed events seen[n], `splitting` = pending[n], and the messages it holds: ProbePubs for
held[n], InsertSubs for heldIns[n]). A subscription's seq precedes the event's when it is in
activeAt (D-OPS). The actions that are one handler call:

- RecvInsert(m): `InsertSub` (the model's insert is the reference's ProbeSub and InsertSub in
  one message; the InsertSub follows the tree down in the same way), with the Split(n) the
  store makes enabled, which the reference does in the same handler (§3.2.2);
- RecvTransfer(m): `TransferSub` creating the child, with its Split when it is overloaded;
- RecvCreated(m): `TransferSub` confirmation; when it is the last, the held messages the model
  puts back in flight are replayed at once by the reference (D-SPLIT), so their RecvProbe and
  RecvInsert at n follow in the same step;
- RecvUpdate(m): `LeafUpdate`;
- RecvProbe(m): `ProbePub`; a delivery is the increase of dcount.

Not one peer's handler call, skipped: Install, Publish and Unsubscribe (the ops, with their
random choices; the model removes a point without the ProbeSub that carries the removal),
LoseUpdate (the network), Split(n) on its own (the reference splits in the handler that
overloads the leaf: a state where a leaf below the depth cap holds more than Cap points is not
a state between two handler calls, so pairs at such a node are skipped as well), MergeLeaves
(a mutant, off). The reference's outcome is abstracted by the same map and compared with the
model's successor: the node's variables, the messages it sends (every message the model adds
must be sent, and every message sent must be in flight in the successor: the model's
messages form a set), and its deliveries; a disagreement stops the generation.

CutoffRemap (thesis §3.5, decision D-SEG). The model has no protocol action (Next
stutters); each of its states (l, u, v, c, h) is one leaf match: a wrapper module, written
next to a copy of CutoffRemap.tla, adds the model's segments <<SegLo(i), SegHi(i), Closed(i)>>
and its set Delivering to the state. Read backwards: subscription `s1` on `b` in 0..MaxV with
the range [l, u], cut-off c and step h (the `thesis` configuration's `cutoff`, `cutoff_h`), its
stored points computed by the reference (reference/thesis/points.py) and checked against the
model's segments, all at the root leaf of the peer `home-root`; the input is a ProbePub of the
event with b = v at the root. The reference's delivery must name `s1` once per delivering
segment of the model.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

from pubsub_spec.conformance.steps import model_graph
from pubsub_spec.conformance.steps.base import JSON, Case, canonical
from pubsub_spec.conformance.steps.thesis import (
    CODEC,
    _Events,
    enc_event,
    enc_message,
    enc_point,
    enc_schema,
    run_step,
)
from pubsub_spec.reference.common.model import (
    Attribute,
    Event,
    Predicate,
    Schema,
    Subscription,
    qualified,
)
from pubsub_spec.reference.overlay.pastry import sha1_id
from pubsub_spec.reference.thesis.config import ThesisConfig
from pubsub_spec.reference.thesis.cutoff import Segment
from pubsub_spec.reference.thesis.messages import (
    InsertSub,
    LeafUpdate,
    Message,
    ProbePub,
    TransferSub,
)
from pubsub_spec.reference.thesis.points import stored_points
from pubsub_spec.reference.thesis.space import Square, axis_bits
from pubsub_spec.reference.thesis.substrate import node_key
from pubsub_spec.reference.thesis.system import TwoDTreeSystem
from pubsub_spec.reference.thesis.tree import StoredPoint

available = model_graph.available

Node = tuple[int, int]

# -- TwoDTree -----------------------------------------------------------------------------------

CAP = 1  # MCTwoDTree.cfg's Cap (NSubs = 2)
TREE = qualified("s", "b")
# The bounds (D, and constants over MCTwoDTree.cfg, `tla -c`): at D = 2, the cascade of splits
# of the model's own picture (two points in cell 01: the root, its child and its grandchild
# pushed to split, the grandchild at the depth cap), without events; and the probes of one
# event matching one of two points in cells 00 and 11 while the root splits (held, jumped back,
# deduplicated, forwarded, matched); at D = 3, the cascade one level deeper (a LeafUpdate
# forwarded to the root, Program 3.1 line 65; a jump back from level 3 to level 1). One bound
# with events and the deep cascade is far larger (docs/steps.md).
TREE_BOUNDS: tuple[tuple[str, int, dict[str, str]], ...] = (
    ("growth", 2, {"Pt": "<<2, 3>>", "Region": "<<>>", "NEvents": "0"}),
    ("probe", 2, {"Pt": "<<0, 6>>", "Region": "<<{0, 2}>>", "NEvents": "1"}),
    ("deep", 3, {"D": "3", "Pt": "<<6, 7>>", "Region": "<<>>", "NEvents": "0"}),
)
ACTIONS = ("RecvInsert", "RecvTransfer", "RecvCreated", "RecvUpdate", "RecvProbe")
MSG_TYPE = {"RecvInsert": "insert", "RecvTransfer": "transfer", "RecvCreated": "created",
            "RecvUpdate": "update", "RecvProbe": "probe"}  # fmt: skip


def bits(n: Node) -> str:
    """The tree node of model node <<level, index>>."""
    level, index = n
    return format(index, f"0{level}b") if level else ""


def node_of(b: str) -> Node:
    return (len(b), int(b, 2) if b else 0)


def home(b: str) -> str:
    return f"home-{b or 'root'}"


def kids(n: Node) -> frozenset[Node]:
    return frozenset({(n[0] + 1, 2 * n[1]), (n[0] + 1, 2 * n[1] + 1)})


class TreeMap:
    """The map read backwards for one bound at depth `d` (module doc): the grid has
    k = ceil(d / 2) bits per axis, and the model's d + 1 bit cells are the reference's 2k bit
    point paths followed by bits no node at depth <= d reads."""

    def __init__(self, d: int, pt: tuple[int, ...], region: tuple[frozenset[int], ...]) -> None:
        self.d, self.r, self.k = d, d + 1, axis_bits(d)
        self.top = 1 << self.k  # the attribute's domain 0..top, one value per grid cell
        self.no_node: Node = (self.r + 1, 0)  # TwoDTree's NoNode
        self.schema = Schema("s", (Attribute("b", "int", 0, self.top),))
        self.square = Square.of(self.schema.attributes[0], d)
        self.config = ThesisConfig(capacity_min=CAP, capacity_max=CAP, max_depth=d,
                                   delivery="unicast", probe="unicast")  # fmt: skip
        self.subs = {i: Subscription(f"s{i}", f"sub-{i}", "s",
                                     (Predicate("b", *self.cell_range(c)),))
                     for i, c in enumerate(pt, start=1)}  # fmt: skip
        self.values: dict[int, int] = {}
        low = (1 << (self.r - 2 * self.k)) - 1
        for j, cells in enumerate(region, start=1):
            want = {c & ~low for c in cells}
            found = [v for v in range(self.top) if self.region_cells(v) == want]
            if not found:
                raise ValueError(f"Region[{j}] = {sorted(cells)} is no event's target area")
            self.values[j] = found[0]
        self.sub_of = {s.id: i for i, s in self.subs.items()}
        self.event_of = {f"e{j}": j for j in self.values}

    def cell_range(self, cell: int) -> tuple[int, int]:
        """The range [x, y] whose point lies in the model's cell: its path's x and y bits."""
        path = format(cell >> (self.r - 2 * self.k), f"0{2 * self.k}b")
        x, y = int(path[0::2], 2), int(path[1::2], 2)
        if x > y:
            raise ValueError(f"cell {cell}: below the diagonal, no range has its point there")
        return x, y

    def region_cells(self, v: int) -> frozenset[int]:
        """The model's cells (trailing bits 0) of the target area of v: x <= v <= y."""
        out = set()
        for x in range(v + 1):
            for y in range(v, self.top):
                xb, yb = format(x, f"0{self.k}b"), format(y, f"0{self.k}b")
                path = "".join(a + b for a, b in zip(xb, yb, strict=True))
                out.add(int(path, 2) << (self.r - 2 * self.k))
        return frozenset(out)

    def eseq(self, j: int) -> int:
        return 10 + j

    def seq(self, i: int, state: dict[str, Any]) -> int:
        """Before every published event it is active for, after the others (D-OPS)."""
        late = any(i not in state["activeAt"][j - 1] for j in state["published"])
        return 20 + i if late else i

    def point(self, i: int, state: dict[str, Any]) -> StoredPoint:
        sub = self.subs[i]
        x, y = sub.predicates[0].lo, sub.predicates[0].hi
        path = self.square.point_path(x, y)  # the reference's cell of the point (§3.2.1)
        return StoredPoint(sub, "b", Segment(0, x, y, True), path, self.seq(i, state))

    def event(self, j: int) -> Event:
        return Event(f"e{j}", "pub", "s", (("b", self.values[j]),))

    def message(self, m: dict[str, Any], state: dict[str, Any]) -> Message:
        t, to = m["t"], bits(m["to"])
        if t == "insert":
            return InsertSub(self.point(m["e"], state), to)
        if t == "probe":
            return ProbePub(self.event(m["e"]), TREE, to)
        if t == "transfer":
            pts = tuple(self.point(i, state) for i in sorted(m["subs"]))
            return TransferSub(TREE, to, pts, frozenset(f"e{j}" for j in m["seen"]))
        if t == "created":
            return TransferSub(TREE, to, created=True)
        return LeafUpdate(TREE, bits(m["from"]), to)

    def events(self) -> _Events:
        return _Events({f"e{j}": self.eseq(j) for j in self.values})

    def tree_node(self, state: dict[str, Any], n: Node) -> JSON:
        events = self.events()
        held: list[Message] = [ProbePub(self.event(j), TREE, bits(n))
                               for j in sorted(state["held"][n])]  # fmt: skip
        held += [InsertSub(self.point(i, state), bits(n)) for i in sorted(state["heldIns"][n])]
        recs = state["lnrt"][n]
        return {
            "tree": TREE,
            "bits": bits(n),
            "points": [enc_point(self.point(i, state)) for i in sorted(state["store"][n])],
            "lnrt": sorted(bits(r) for r in recs) if recs else None,
            "seen": sorted(f"e{j}" for j in state["seen"][n]),
            "splitting": state["pending"][n],
            "held": [enc_message(m, events) for m in held],
        }

    def pre(self, state: dict[str, Any], n: Node) -> JSON:
        nodes = [self.tree_node(state, n)] if n in state["exists"] else []
        return {"node": {"name": home(bits(n)), "capacity": CAP, "nodes": nodes,
                         "subscriptions": []}}  # fmt: skip

    def local(self, state: dict[str, Any], n: Node) -> tuple[Any, ...]:
        """The model's variables at node n."""
        if n not in state["exists"]:
            return (False,)
        return (True, frozenset(state["lnrt"][n]), frozenset(state["store"][n]),
                frozenset(state["seen"][n]), state["pending"][n], frozenset(state["held"][n]),
                frozenset(state["heldIns"][n]))  # fmt: skip

    def local_of_post(self, post: JSON, n: Node) -> tuple[Any, ...]:
        """The same variables, read off the reference's post-state (the map)."""
        mine = [x for x in post["node"]["nodes"] if x["bits"] == bits(n)]
        if not mine:
            return (False,)
        x = mine[0]
        held = {self.event_of[m["event"]["id"]] for m in x["held"] if m["type"] == "ProbePub"}
        ins = {self.sub_of[m["point"]["sub"]["id"]] for m in x["held"]
               if m["type"] in ("InsertSub", "ProbeSub")}  # fmt: skip
        return (True, frozenset(node_of(r) for r in x["lnrt"] or ()),
                frozenset(self.sub_of[p["sub"]["id"]] for p in x["points"]),
                frozenset(self.event_of[e] for e in x["seen"]), x["splitting"],
                frozenset(held), frozenset(ins))  # fmt: skip

    def sent(self, sends: list[JSON], n: Node) -> tuple[set[Any], set[tuple[int, int]]]:
        """The messages sent, as the model's records, and the deliveries (event, sub)."""
        msgs: set[Any] = set()
        delivered: set[tuple[int, int]] = set()
        for s in sends:
            m = s["fields"]["message"]
            kind = m["type"]
            if kind == "EventDelivery":
                j = self.event_of[m["event"]["id"]]
                delivered |= {(j, self.sub_of[i]) for _, ids in m["targets"] for i in ids}
            elif kind == "InsertSub":
                msgs.add(_rec("insert", node_of(m["target"]), self.no_node,
                              self.sub_of[m["point"]["sub"]["id"]]))  # fmt: skip
            elif kind == "ProbePub":
                msgs.add(_rec("probe", node_of(m["target"]), self.no_node,
                              self.event_of[m["event"]["id"]]))  # fmt: skip
            elif kind == "TransferSub" and m["created"]:
                msgs.add(_rec("created", node_of(m["target"]), n, 0))
            elif kind == "TransferSub":
                msgs.add(_rec("transfer", node_of(m["target"]), node_of(m["target"][:-1]), 0,
                              frozenset(self.sub_of[p["sub"]["id"]] for p in m["points"]),
                              frozenset(self.event_of[e] for e in m["seen"])))  # fmt: skip
            elif kind == "LeafUpdate":
                msgs.add(_rec("update", node_of(m["target"]), node_of(m["split"]), 0))
            else:
                msgs.add(("unmapped", kind))
        return msgs, delivered


def _rec(t: str, to: Node, frm: Node, e: int, subs: frozenset[int] = frozenset(),
         seen: frozenset[int] = frozenset()) -> tuple[Any, ...]:  # fmt: skip
    return (t, to, frm, e, subs, seen)


def _key(m: dict[str, Any]) -> tuple[Any, ...]:
    return _rec(m["t"], m["to"], m["from"], m["e"], frozenset(m["subs"]), frozenset(m["seen"]))


def _fn(value: Any) -> dict[Any, Any]:
    """A function of the model (one over an empty domain is printed as <<>>)."""
    return dict(value) if isinstance(value, dict) else {}


def _splittable(state: dict[str, Any], n: Node, d: int) -> bool:
    """TwoDTree's Split(n) is enabled (Cap of the cfg, depth d; NoCap off)."""
    return (n in state["exists"] and not state["lnrt"][n] and state["pending"][n] == 0
            and len(state["store"][n]) > CAP and n[0] < d)  # fmt: skip


class _Walk:
    """The model's successors of a state by action, to follow the steps the reference takes
    in the same handler call."""

    def __init__(self, graph: model_graph.Graph) -> None:
        self.states = graph.states
        self.out: dict[str, list[tuple[str, str]]] = {}
        for a, b, action in graph.edges:
            self.out.setdefault(a, []).append((b, action))

    def follow(self, sid: str, action: str, pred: Callable[[dict[str, Any]], bool]) -> str:
        found = [b for b, act in self.out.get(sid, []) if act == action and pred(self.states[b])]
        if len(found) != 1:
            raise AssertionError(f"TwoDTree.tla: {len(found)} {action} successors where the "
                                 "reference's handler continues")  # fmt: skip
        return found[0]


def _consumed(s: dict[str, Any], t: dict[str, Any], action: str) -> dict[str, Any]:
    kind = MSG_TYPE[action]
    gone = [m for m in s["msgs"] if m["t"] == kind and m not in t["msgs"]]
    if len(gone) != 1:
        raise AssertionError(f"TwoDTree.tla's {action}: {len(gone)} messages consumed")
    return dict(gone[0])


def _consumes(key: tuple[Any, ...]) -> Callable[[dict[str, Any]], bool]:
    """A successor without the message `key` in flight."""
    return lambda t: key not in {_key(x) for x in t["msgs"]}


def _complete(walk: _Walk, tmap: TreeMap, a: str, b: str, action: str, m: dict[str, Any]) -> str:
    """The model's state once the reference's handler call is over (module doc)."""
    s, n = walk.states[a], m["to"]
    cur = b
    if action == "RecvCreated" and s["pending"][n] == 1:  # the last confirmation: replays
        released = [{"t": "probe", "to": n, "from": tmap.no_node, "e": j, "subs": frozenset(),
                     "seen": frozenset()} for j in sorted(s["held"][n])]  # fmt: skip
        released += [{"t": "insert", "to": n, "from": tmap.no_node, "e": i, "subs": frozenset(),
                      "seen": frozenset()} for i in sorted(s["heldIns"][n])]  # fmt: skip
        for r in released:
            act = "RecvProbe" if r["t"] == "probe" else "RecvInsert"
            cur = walk.follow(cur, act, _consumes(_key(r)))
    if action in ("RecvInsert", "RecvTransfer") and _splittable(walk.states[cur], n, tmap.d):
        cur = walk.follow(cur, "Split", lambda t: t["lnrt"][n] == kids(n))
    return cur


def _oracle() -> tuple[Callable[[int], str], Callable[[int], str]]:
    names: dict[int, str] = {}
    for level in range(max(d for _, d, _ in TREE_BOUNDS) + 2):
        for i in range(1 << level):
            b = bits((level, i))
            names[node_key(TREE, b)] = home(b)
    for name in ("sub-1", "sub-2", "pub"):
        names[sha1_id(name)] = name

    def answer(key: int) -> str:
        return names[key]

    return answer, answer  # the first hop toward a key is its home: one hop


def _context(config: ThesisConfig, schema: Schema, overlay: dict[str, dict[str, str]]) -> JSON:
    return {"schemas": [enc_schema(schema)], "matching": "strict",
            "config": CODEC.to_json(config), "alive": None,
            "overlay": {t: dict(sorted(overlay.get(t, {}).items()))
                        for t in ("first_hops", "homes")}}  # fmt: skip


@functools.cache
def _tree_graph(constants: tuple[tuple[str, str], ...]) -> model_graph.Graph:
    """MCTwoDTree's state graph at one bound (explored once per process)."""
    return model_graph.export("thesis/MCTwoDTree.tla", "thesis/MCTwoDTree.cfg", dict(constants))


def tree_cases(base: type[TwoDTreeSystem] | None = None) -> Iterator[Case]:
    """The distinct model-derived cases of MCTwoDTree at its bounds (module doc); `base`: a
    variant of the system whose handlers run instead of the reference's (a mutant)."""
    seen: set[str] = set()
    k = 0
    oracle = _oracle()
    for _, d, constants in TREE_BOUNDS:
        graph = _tree_graph(tuple(sorted(constants.items())))
        pt = model_graph.value(constants["Pt"])
        region = model_graph.value(constants["Region"])
        tmap = TreeMap(d, tuple(pt), tuple(region))
        walk = _Walk(graph)
        checked: dict[str, tuple[tuple[Any, ...], set[Any], set[tuple[int, int]]]] = {}
        for a, b, action in graph.edges:
            if action not in ACTIONS:
                continue  # not one peer's handler call (module doc)
            s = graph.states[a]
            m = _consumed(s, graph.states[b], action)
            n = m["to"]
            if _splittable(s, n, d):
                continue  # not a state between two handler calls of the reference
            t = graph.states[_complete(walk, tmap, a, b, action, m)]
            pre = tmap.pre(s, n)
            step_input = enc_message(tmap.message(m, s), tmap.events())
            key = canonical([pre, step_input])
            if key not in checked:
                bare = {**pre, "context": _context(tmap.config, tmap.schema, {})}
                outcome, asked = run_step(bare, step_input, oracle, base)
                if outcome.invalid is not None:
                    raise AssertionError(f"TwoDTree.tla's {action} at {bits(n)!r}: the "
                                         f"reference refuses it: {outcome.invalid}")  # fmt: skip
                sent, delivered = tmap.sent(outcome.sends, n)
                checked[key] = (tmap.local_of_post(outcome.post, n), sent, delivered)
                full = {**pre, "context": _context(tmap.config, tmap.schema, asked)}
                if key not in seen:
                    seen.add(key)
                    yield Case(step_input["type"], f"model-twodtree-{k:03d}", full, step_input)
                    k += 1
            local, sent, delivered = checked[key]
            _compare(tmap, s, t, n, m, action, local, sent, delivered)


def _compare(tmap: TreeMap, s: dict[str, Any], t: dict[str, Any], n: Node, m: dict[str, Any],
             action: str, local: tuple[Any, ...], sent: set[Any],
             delivered: set[tuple[int, int]]) -> None:  # fmt: skip
    """The reference's outcome against the model's successor (module doc)."""
    where = f"TwoDTree.tla's {action} of {_key(m)} at {bits(n)!r}"
    if local != tmap.local(t, n):
        raise AssertionError(f"{where}: the node becomes {tmap.local(t, n)} in the model, "
                             f"{local} in the reference")  # fmt: skip
    before = {_key(x) for x in s["msgs"]} - {_key(m)}
    after = {_key(x) for x in t["msgs"]}
    added = after - before
    if not added <= sent or not sent <= after:
        raise AssertionError(f"{where}: the model sends {sorted(map(str, added))}, the reference "
                             f"{sorted(map(str, sent))}")  # fmt: skip
    before_count, after_count = _fn(s["dcount"]), _fn(t["dcount"])
    model_delivered = {p for p, c in after_count.items() if c > before_count[p]}
    if delivered != model_delivered:
        raise AssertionError(f"{where}: the model delivers {sorted(model_delivered)}, the "
                             f"reference {sorted(delivered)}")  # fmt: skip


# -- CutoffRemap --------------------------------------------------------------------------------

CUTOFF_BOUND = {"MaxV": 3, "MaxC": 2}  # the smallest domain with a remapped range: u - l > c
CUTOFF_DEPTH = 2  # max_depth of the configuration (the root leaf is the only node)
WRAPPER = """---- MODULE StepCutoffRemap ----
EXTENDS CutoffRemap
VARIABLES segs, delivering
StepInit == /\\ Init
            /\\ segs = [i \\in 1..NSeg |-> <<SegLo(i - 1), SegHi(i - 1), Closed(i - 1)>>]
            /\\ delivering = Delivering
StepNext == UNCHANGED <<l, u, v, c, h, segs, delivering>>
====
"""
WRAPPER_CFG = """CONSTANTS
    Bug = "none"
    MaxV = {MaxV}
    MaxC = {MaxC}
    ClosedAll = FALSE
INIT StepInit
NEXT StepNext
CHECK_DEADLOCK FALSE
"""


@functools.cache
def _cutoff_graph() -> model_graph.Graph:
    spec = Path(str(resources.files("pubsub_spec") / "spec"))
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(spec / "thesis" / "CutoffRemap.tla", Path(tmp) / "CutoffRemap.tla")
        (Path(tmp) / "StepCutoffRemap.tla").write_text(WRAPPER)
        (Path(tmp) / "StepCutoffRemap.cfg").write_text(WRAPPER_CFG.format(**CUTOFF_BOUND))
        # absolute paths: `export` joins them to spec/, which leaves an absolute path as it is
        return model_graph.export(f"{tmp}/StepCutoffRemap.tla", f"{tmp}/StepCutoffRemap.cfg")


def cutoff_cases(base: type[TwoDTreeSystem] | None = None) -> Iterator[Case]:
    """One case per state of MCCutoffRemap at its bound (module doc)."""
    graph = _cutoff_graph()
    schema = Schema("s", (Attribute("b", "int", 0, CUTOFF_BOUND["MaxV"]),))
    attrs = {TREE: schema.attributes[0]}
    oracle = _oracle()
    out: dict[str, Case] = {}
    for s in graph.states.values():
        lo, hi, v, c, h = s["l"], s["u"], s["v"], s["c"], s["h"]
        config = ThesisConfig(capacity_min=1, capacity_max=1, max_depth=CUTOFF_DEPTH,
                              cutoff=((TREE, c),), cutoff_h=((TREE, h),))  # fmt: skip
        squares = {TREE: Square.of(attrs[TREE], CUTOFF_DEPTH)}
        sub = Subscription("s1", "sub-1", "s", (Predicate("b", lo, hi),))
        points = stored_points(sub, 1, 0, config, attrs, squares)  # the reference's (§3.5)
        got = tuple((p.segment.lo, p.segment.hi, p.segment.closed) for p in points)
        if got != tuple(s["segs"]):
            raise AssertionError(f"CutoffRemap.tla's segments of [{lo}, {hi}] with c = {c}, "
                                 f"h = {h}: {s['segs']}; the reference stores {got}")  # fmt: skip
        node = {"tree": TREE, "bits": "", "points": [enc_point(p) for p in points],
                "lnrt": None, "seen": [], "splitting": 0, "held": []}  # fmt: skip
        pre = {"node": {"name": home(""), "capacity": len(points), "nodes": [node],
                        "subscriptions": []}}  # fmt: skip
        event = Event("e1", "pub", "s", (("b", v),))
        step_input = {"type": "ProbePub", "event": enc_event(event, 2), "tree": TREE,
                      "target": ""}  # fmt: skip
        outcome, asked = run_step({**pre, "context": _context(config, schema, {})}, step_input,
                                  oracle, base)  # fmt: skip
        ids = [i for x in outcome.sends for _, got_ids in x["fields"]["message"]["targets"]
               for i in got_ids]  # fmt: skip
        if outcome.invalid is not None or len(ids) != len(s["delivering"]):
            raise AssertionError(f"CutoffRemap.tla at l={lo} u={hi} v={v} c={c} h={h} "
                                 f"delivers segments {sorted(s['delivering'])}; the reference "
                                 f"{outcome.invalid or ids}")  # fmt: skip
        full = {**pre, "context": _context(config, schema, asked)}
        out[canonical([full, step_input])] = Case("ProbePub", "", full, step_input)
    for k, key in enumerate(sorted(out)):
        case = out[key]
        yield Case(case.handler, f"model-cutoffremap-{k:03d}", case.pre, case.input)


def cases(base: type[TwoDTreeSystem] | None = None) -> Iterator[Case]:
    """Every model-derived case of the thesis system (`base`: a mutant's handlers)."""
    yield from tree_cases(base)
    yield from cutoff_cases(base)
