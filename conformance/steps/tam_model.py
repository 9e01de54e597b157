"""Model-derived step vectors of Tam et al. over Scribe (docs/steps.md, "Model-derived
vectors"): every distinct (state, action) pair of the TLA+ model spec/tam/MCScribe.tla at its
CI bound (spec/manifest.json, "ci") whose action is one peer's step becomes a `tam` vector
`tam/<handler>/model-scribe-NNN`.

The model is one Scribe group (one key) over peers 1..6 (Castro et al., IEEE JSAC 2002, §2.2;
Tam et al. §3.3); the pinned checker exports its state graph (conformance/steps/model_graph.py).
An action maps onto one handler call of one peer n:

- `Subscribe(p)`: the op `subscribe` at p (a subscription of p on the group's key: Scribe
  §2.2.1, the JOIN toward the key, or the root created at the home, or membership of a tree p
  is in);
- `Unsubscribe(p)`: the op `unsubscribe` at p (Scribe §2.2.2: the member flag cleared, a
  childless peer pruned with a LEAVE to its parent);
- `Publish(e)`: a `ScribePublish` arriving at the key's home (the model's publication enters at
  the root, decision T11), which multicasts it down its tree edges;
- `Recv(m)` of a live message of the current epoch: `ScribeJoin` (absorbed, root created, or
  forwarded: Tam et al. §3.3, Scribe §2.2.1), `ScribeLeave` (§2.2.2) or `ScribeMulticast`
  (§3.3) at m's receiver.

Skipped, because they are not one peer's step: `Recv(m)` of a message to a failed peer or from
before a rebuild (`RecvDrop`: the reference has no epoch, D-OPS lets every message finish
before a failure), `Fail`, `Arrive` and `RebuildTree` (churn: decision T12 acts on every peer
of the group at once; the root handover and the rebuild have no one-peer handler).

The abstraction map of the trace validation (properties/tam/trace_export.py) read backwards:
model peer i is the peer named `n<i>`; the key is the index key of the value 1 of the
validation's schema `kv` (one int attribute `k` in 0..2, one key per value, Tam et al. §3.5);
`inT[i]`, `par[i]` (0 at the root), `ch[i]` and `mem[i]` are peer i's group state (`groups`:
parent null at the root); a member has one active subscription `s<i>` with predicate k = 1,
registered on the key; the overlay's answer (`routes`) is the model's `NextHop(i)`, or i itself
at the home, as the map numbers the peers so that NextHop is Pastry's next hop. What the model
leaves out is fixed: a JOIN's `origin` is its sender (it names the member whose JOIN it is, for
the installation bookkeeping a step leaves out), `repair` is false (the flag is passed on and
changes nothing at the receiver), the publication is `e<e>` published by `n0` (outside the
group) with `seq` 2, and a subscription's `seq` is 1 when it was made before the publication
(the peer is in `activeAt[e]` or nothing is published yet), else 3 (docs/design.md#active: a
subscription matches the events published after it).

Each pair is also a check of the model against the reference: the model's successor read
through the same map must be the reference's post-state of peer n, the messages the model adds
must be the reference's sends (type and receiver), the model's delivery at n (`got`) must be
the reference's (for a subscription made before the publication), and the action must change
no other peer's group state; a disagreement stops the generation.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from importlib import resources
from typing import Any

from pubsub_spec.conformance.steps import model_graph
from pubsub_spec.conformance.steps.base import JSON, Case, Outcome, canonical
from pubsub_spec.conformance.steps.kyra import enc_event
from pubsub_spec.conformance.steps.thesis import enc_schema, enc_sub
from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.tam.config import SECTION, TamCodec, TamConfig
from pubsub_spec.reference.tam.system import hex_key
from pubsub_spec.reference.tam.tables import Table

available = model_graph.available

MODULE, CFG = "tam/MCScribe.tla", "tam/MCScribe.cfg"
SCHEMA = Schema("kv", (Attribute("k", "int", 0, 2),))  # as properties/tam/trace_export.py
VALUE = 1  # the value of k the group's key stands for
CONFIG = TamConfig()  # `first` policy, one index per attribute (T6, T9): one key per value
PUBLISHER = "n0"
EVENT_SEQ, EARLY_SEQ, LATE_SEQ = 2, 1, 3
MESSAGE = {"join": "ScribeJoin", "leave": "ScribeLeave", "mc": "ScribeMulticast"}
SKIPPED = ("RecvDrop", "Fail", "Arrive", "RebuildTree")  # not one peer's step (module doc)


def ci_constants() -> dict[str, str]:
    """The constants MCScribe runs with in CI (spec/manifest.json, its `ci` entry)."""
    manifest = json.loads((resources.files("pubsub_spec") / "spec" / "manifest.json").read_text())
    (model,) = [m for m in manifest["models"] if m["name"] == "MCScribe"]
    return dict(model["ci"]["constants"])


def _key() -> str:
    table = Table(SCHEMA, CONFIG)
    event = Event("e", PUBLISHER, SCHEMA.name, (("k", VALUE),))
    (ix,) = table.applicable_to_event(event)
    return hex_key(table.event_key(event, ix))


KEY = _key()


def name(i: int) -> str:
    return f"n{i}"


def sub_of(i: int) -> Subscription:
    return Subscription(f"s{i}", name(i), SCHEMA.name, (Predicate("k", VALUE, VALUE),))


def event_of(e: int) -> Event:
    return Event(f"e{e}", PUBLISHER, SCHEMA.name, (("k", VALUE),))


def next_hop(p: int, alive: frozenset[int]) -> int:
    """Scribe.tla's NextHop: the largest live q <= p div 2, else the home (the smallest)."""
    lower = [q for q in alive if q <= p // 2]
    return max(lower) if lower else min(alive)


def _early(s: model_graph.State, i: int) -> bool:
    """Peer i's subscription came before the publication (module doc)."""
    return 1 not in s["published"] or i in s["activeAt"][0]


def node(s: model_graph.State, i: int) -> JSON:
    """Peer i's `pre.node` / `post.node` for model state s (the map read backwards)."""
    in_tree, parent, children, member = s["inT"][i], s["par"][i], s["ch"][i], s["mem"][i]
    if not in_tree and (parent != 0 or children or member):
        raise AssertionError(f"MCScribe: peer {i} holds group state outside the tree in {s}")
    subs: list[JSON] = []
    registered: dict[str, list[str]] = {}
    if member:
        seq = EARLY_SEQ if _early(s, i) else LATE_SEQ
        subs = [{"sub": enc_sub(sub_of(i)), "seq": seq, "keys": [KEY], "active": True}]
        registered = {KEY: [sub_of(i).id]}
    groups: list[JSON] = []
    if in_tree:
        groups = [{"key": KEY, "parent": None if parent == 0 else name(parent),
                   "children": sorted(name(c) for c in children), "member": member}]  # fmt: skip
    return {"name": name(i), "subs": subs, "registered": registered, "groups": groups,
            "seen": {}}  # fmt: skip


def pre_of(s: model_graph.State, i: int) -> JSON:
    alive = s["alive"]
    home = min(alive)
    context = {
        "schemas": [enc_schema(SCHEMA)],
        "matching": "strict",
        "config": TamCodec(SECTION).to_json(CONFIG),
        "routes": {KEY: name(i if i == home else next_hop(i, alive))},
        "now": 0.0,
        "status": [],
    }
    return {"node": node(s, i), "context": context}


def step_of(s: model_graph.State, t: model_graph.State,
            action: str) -> tuple[str, int, JSON, Any] | None:  # fmt: skip
    """(handler, peer, input, the message consumed) of one transition, or None when it is not
    one peer's step (module doc)."""
    if len(s["got"]) != 1:
        raise AssertionError("MCScribe: the map fixes one publication (Pubs = 1)")
    if action == "Subscribe":
        (p,) = t["subd"] - s["subd"]
        seq = EARLY_SEQ if 1 not in s["published"] else LATE_SEQ
        return "subscribe", p, {"op": "subscribe", "sub": enc_sub(sub_of(p)), "seq": seq}, None
    if action == "Unsubscribe":
        (p,) = [i for i in s["mem"] if s["mem"][i] and not t["mem"][i]]
        return "unsubscribe", p, {"op": "unsubscribe", "sub": sub_of(p).id}, None
    if action == "Publish":
        (e,) = t["published"] - s["published"]
        ev = {"type": "ScribePublish", "key": KEY,
              "event": enc_event(event_of(e), {f"e{e}": EVENT_SEQ})}  # fmt: skip
        return "ScribePublish", min(s["alive"]), ev, None
    if action != "Recv":
        return None  # Fail, Arrive, RebuildTree
    (m,) = s["msgs"] - t["msgs"]
    if m["d"] not in s["alive"] or m["ep"] != s["epoch"]:
        return None  # RecvDrop (the cfg's Discard = TRUE)
    kind = MESSAGE[m["t"]]
    step_input: JSON = {"type": kind, "key": KEY}
    if kind == "ScribeJoin":
        step_input |= {"child": name(m["s"]), "origin": name(m["s"]), "repair": False}
    elif kind == "ScribeLeave":
        step_input["child"] = name(m["s"])
    else:
        step_input["event"] = enc_event(event_of(m["e"]), {f"e{m['e']}": EVENT_SEQ})
    return kind, m["d"], step_input, m


def check(s: model_graph.State, t: model_graph.State, action: str, n: int, consumed: Any,
          got: Outcome) -> None:  # fmt: skip
    """The model's successor against the reference's outcome at peer n (module doc)."""
    where = f"MCScribe's {action} at peer {n}"
    if got.invalid is not None:
        raise AssertionError(f"{where}: the reference refuses it ({got.invalid})")
    post = node(t, n)
    if post != got.post["node"]:
        raise AssertionError(f"{where}: the model's successor {post}; the reference's "
                             f"{got.post['node']}")  # fmt: skip
    for i in s["inT"]:
        if i != n and any(s[v][i] != t[v][i] for v in ("inT", "par", "ch", "mem")):
            raise AssertionError(f"{where} changes peer {i}: not one peer's step")
    left = s["msgs"] - ({consumed} if consumed is not None else set())
    added = t["msgs"] - left
    model_sends = sorted((MESSAGE[x["t"]], name(x["d"])) for x in added if x["s"] == n)
    if len(model_sends) != len(added):
        raise AssertionError(f"{where}: another peer sends: not one peer's step")
    ref_sends = sorted((x["fields"]["message"]["type"], x["to"]) for x in got.sends)
    if model_sends != ref_sends:
        raise AssertionError(f"{where}: the model sends {model_sends}; the reference "
                             f"{ref_sends}")  # fmt: skip
    model_got = t["got"][0][n] > s["got"][0][n] and n in t["activeAt"][0]
    expected = [[event_of(1).id, sub_of(n).id]] if model_got else []
    if got.post["delivered"] != expected:
        raise AssertionError(f"{where}: the model delivers {expected}; the reference "
                             f"{got.post['delivered']}")  # fmt: skip


def graph() -> model_graph.Graph:
    """MCScribe's state graph at its CI bound."""
    return model_graph.export(MODULE, CFG, ci_constants())


def cases(apply: Callable[[JSON, JSON], Outcome],
          explored: model_graph.Graph | None = None) -> Iterator[Case]:  # fmt: skip
    """The distinct model-derived cases, numbered per handler in the order of their bytes
    (`apply`: the tam handler, to check each transition against the model's successor;
    `explored`: the state graph, default `graph()`)."""
    explored = explored or graph()
    states = explored.states
    outcomes: dict[str, tuple[str, JSON, JSON, Outcome]] = {}
    for a, b, action in explored.edges:
        s, t = states[a], states[b]
        step = step_of(s, t, action)
        if step is None:
            continue
        handler, n, step_input, consumed = step
        pre = pre_of(s, n)
        key = canonical([handler, pre, step_input])
        if key not in outcomes:
            outcomes[key] = (handler, pre, step_input, apply(pre, step_input))
        check(s, t, action, n, consumed, outcomes[key][3])
    numbered: dict[str, int] = {}
    for key in sorted(outcomes):
        handler, pre, step_input, _ = outcomes[key]
        k = numbered.get(handler, 0)
        numbered[handler] = k + 1
        yield Case(handler, f"model-scribe-{k:03d}", pre, step_input)
