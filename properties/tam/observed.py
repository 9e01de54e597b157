"""TLA+ trace validation of observed Scribe trees (conformance/OBSERVATIONS.md, "tam, tam-basic",
`tam`): the observations an implementation reports, the built-in's or an outside program's,
are turned into the per-group records of properties/tam/trace_export.py and validated against
spec/tam/Scribe.tla by the same abstraction map (`_map_group`'s state shape, `embed`,
`validate_scribe`), built from the log alone.

Per key (one Scribe group; Scribe.tla models one): Init, then one step per handling, in log
order. A handling is a block of consecutive observations of the key at one node consuming at
most one message: `tam-register` / `tam-unregister` start an op (the spec's `Subscribe` /
`Unsubscribe` at the member); `scribe-child-added` / `scribe-child-removed` of child c consume
c's JOIN / LEAVE (FIFO per channel); `ScribeMulticast` sends of event e consume the copy of e in
flight to the node, or, at the key's root, the `ScribePublish` of e that reached it (the spec's
`Publish`: `published`, `activeAt` = the members then, `clean` = no JOIN or LEAVE of the group in
flight); a `ScribePublish` hop consumes the hop that reached the node (not modelled: the spec's
publication enters at the root). A copy or hop no later block consumes was handled silently,
right after the block that sent it (one step each). Pastry ids are the SHA-1 of the node names
(OBSERVATIONS.md, "Ids and keys"); the spec ids come from the observed parents (`scribe-parent`)
and root (`scribe-root`) by `embed`. `got[e][p]` counts the copies handled at p while p is a
member (Scribe delivers to a member that handles a copy, Tam et al. §3.3; the deliveries
themselves are judged at the delivery level).

Runs outside the map's bound are not validated: `validate_observed` returns None for them (the
claim is not `tam`, a peer joins, leaves or fails, a peer enters a group twice (a repair or a
second member join), or the tree has no embedding); `fits` names the bound.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from pubsub_spec.conformance.protocol_rules.base import Observed, ObservedRun
from pubsub_spec.properties.tam.trace_export import ScribeRun, embed, validate_scribe
from pubsub_spec.properties.thesis.tree_trace import Rec
from pubsub_spec.properties.tracecheck import TlaValue, Validation
from pubsub_spec.reference.common.ops import Publish, Subscribe, Unsubscribe
from pubsub_spec.reference.overlay.pastry import sha1_id

Msg = tuple[str, str, str, str]  # type (join, leave, mc, pub), sender, receiver, event or ""


def fits(run: ObservedRun) -> str | None:
    """None when the run's ops are inside the map's bound, else the bound it breaks."""
    if run.system != "tam":
        return f"system {run.system!r} is not tam"
    if any(not isinstance(op, (Subscribe, Unsubscribe, Publish)) for op in run.trace.ops):
        return "no churn (no join, leave or fail op)"
    return None


@dataclass
class _Group:
    """One key's state as the log tells it (Pastry names; mapped once the log is read)."""

    inT: set[str] = field(default_factory=set)
    par: dict[str, str] = field(default_factory=dict)
    ch: dict[str, set[str]] = field(default_factory=dict)
    mem: set[str] = field(default_factory=set)
    subd: set[str] = field(default_factory=set)
    flight: list[tuple[Msg, int]] = field(default_factory=list)  # message, place
    got: Counter[tuple[str, str]] = field(default_factory=Counter)
    published: list[str] = field(default_factory=list)
    active_at: dict[str, frozenset[str]] = field(default_factory=dict)
    clean: dict[str, bool] = field(default_factory=dict)
    parents: dict[str, str] = field(default_factory=dict)
    root: str | None = None
    problem: str = ""
    raw: list[tuple[object, ...]] = field(default_factory=list)

    def snapshot(self) -> None:
        s = (
            frozenset(self.inT),
            frozenset(self.par.items()),
            frozenset((p, frozenset(c)) for p, c in self.ch.items() if c),
            frozenset(self.mem),
            frozenset(self.subd),
            frozenset((m, k) for m, k in self.flight if m[0] != "pub"),
            frozenset((q, min(2, c)) for q, c in self.got.items()),
            tuple(self.published),
            frozenset(self.active_at.items()),
            frozenset(self.clean.items()),
        )
        if not self.raw or self.raw[-1] != s:
            self.raw.append(s)

    def send(self, m: Msg) -> None:
        k = 0
        if m[0] in ("join", "leave"):
            on = [k for (t, s, d, _), k in self.flight if (s, d) == m[1:3] and t != "mc"]
            k = 1 + max(on, default=0)
        self.flight.append((m, k))

    def take(self, want: Msg) -> Msg | None:
        for i, (m, _) in enumerate(self.flight):
            if m == want:
                del self.flight[i]
                return m
        return None

    def reach_root(self, e: str) -> None:
        if not self.subd:
            return  # before the group's first member: not recorded, as in the map
        self.published.append(e)
        self.active_at[e] = frozenset(self.mem)
        self.clean[e] = not any(m[0] in ("join", "leave") for m, _ in self.flight)

    def deliver(self, e: str, p: str) -> None:
        if p in self.mem:
            self.got[(e, p)] += 1


def _key(o: Observed) -> str | None:
    k = o.obs.fields.get("key")
    return str(k) if isinstance(k, str) else None


def _consumes(g: _Group, obs: Sequence[Observed], node: str) -> Msg | None:
    """The message the block handles, if any (module doc)."""
    for o in obs:
        ob = o.obs
        f = ob.fields
        if ob.name in ("tam-register", "tam-unregister"):
            return None
        if ob.name == "scribe-child-added":
            return ("join", str(f.get("child")), node, "")
        if ob.name == "scribe-child-removed":
            return ("leave", str(f.get("child")), node, "")
        if ob.kind == "send" and ob.name in ("ScribeMulticast", "ScribePublish"):
            e = ob.event or ""
            for t in ("mc", "pub"):
                if any(m == (t, m[1], node, e) for m, _ in g.flight):
                    return next(m for m, _ in g.flight if m[0] == t and m[2:] == (node, e))
            return None
    return None


def _blocks(log: Sequence[Observed]) -> dict[str, list[tuple[str, list[Observed]]]]:
    """Per key, the runs of consecutive observations at one node, in log order."""
    out: dict[str, list[tuple[str, list[Observed]]]] = {}
    last: tuple[str, str] | None = None
    for o in log:
        key = _key(o)
        if key is None:
            last = None
            continue
        blocks = out.setdefault(key, [])
        starts = o.obs.name in ("tam-register", "tam-unregister", "scribe-child-added")
        if o.obs.kind == "send" and o.obs.name in ("ScribeMulticast", "ScribePublish"):
            prev = blocks[-1][1][-1].obs if blocks else None  # one copy or hop per block
            starts = prev is None or (prev.name, prev.event) != (o.obs.name, o.obs.event)
        if last == (key, o.obs.node) and blocks and not starts:
            blocks[-1][1].append(o)
        elif (
            last == (key, o.obs.node)
            and blocks
            and o.obs.name == "scribe-child-added"
            and [x.obs.name for x in blocks[-1][1]] in (["scribe-parent"], ["scribe-root"])
        ):
            blocks[-1][1].append(o)  # a node enters the tree, then absorbs the JOIN
        else:
            blocks.append((o.obs.node, [o]))
        last = (key, o.obs.node)
    return out


def _run_group(key: str, blocks: list[tuple[str, list[Observed]]]) -> _Group:
    g = _Group()
    g.snapshot()  # Init: the group has no state
    home = next((n for n, b in blocks for o in b if o.obs.name == "scribe-root"), None)
    for node, obs in blocks:
        took = _consumes(g, obs, node)
        if took is not None:
            g.take(took)
        sent: list[Msg] = []
        multicast = False
        for o in obs:
            ob = o.obs
            f = ob.fields
            if ob.name == "scribe-root":
                g.root = g.root or node
                if g.root != node:
                    g.problem = g.problem or "two roots"
                g.inT.add(node)
            elif ob.name == "scribe-parent":
                p = str(f.get("parent"))
                if g.parents.get(node, p) != p:
                    g.problem = g.problem or f"{node} enters the tree below two parents"
                g.parents[node] = p
                g.inT.add(node)
                g.par[node] = p
            elif ob.name == "scribe-child-added":
                g.ch.setdefault(node, set()).add(str(f.get("child")))
            elif ob.name == "scribe-child-removed":
                g.ch.setdefault(node, set()).discard(str(f.get("child")))
            elif ob.name == "scribe-member":
                if f.get("member"):
                    if node in g.subd:
                        g.problem = g.problem or f"a second member join of {node}"
                    g.subd.add(node)
                    g.mem.add(node)
                    g.inT.add(node)
                else:
                    g.mem.discard(node)
            elif ob.name == "scribe-left":
                if f.get("reason") != "pruned":
                    g.problem = g.problem or f"a tree torn down ({f.get('reason')})"
                g.inT.discard(node)
                g.par.pop(node, None)
                g.ch.pop(node, None)
            elif ob.kind == "send":
                to = ob.to or ""
                t = {
                    "ScribeJoin": "join",
                    "ScribeLeave": "leave",
                    "ScribeMulticast": "mc",
                    "ScribePublish": "pub",
                }.get(ob.name)
                if t is None:
                    continue
                if t == "mc" and not multicast:
                    multicast = True
                    e = ob.event or ""
                    if took is None or took[0] == "pub":
                        g.reach_root(e)  # a publication at its root (module doc)
                    g.deliver(e, node)
                m = (t, node, to, ob.event or "" if t in ("mc", "pub") else "")
                g.send(m)
                sent.append(m)
        if took is not None and took[0] == "mc" and not multicast:
            g.deliver(took[3], node)
        g.snapshot()
        for m in sent:  # handled silently: no later block consumes it (module doc)
            if m[0] in ("mc", "pub") and not _handled_later(m, blocks, node, obs):
                g.take(m)
                if m[0] == "mc":
                    g.deliver(m[3], m[2])
                elif home == m[2]:
                    g.reach_root(m[3])
                    g.deliver(m[3], m[2])
                g.snapshot()
    return g


def _handled_later(
    m: Msg, blocks: list[tuple[str, list[Observed]]], node: str, obs: list[Observed]
) -> bool:
    """Whether the receiver of copy or hop `m` reports a block forwarding it after `obs`."""
    after = False
    for n, b in blocks:
        if b is obs:
            after = True
            continue
        if (
            after
            and n == m[2]
            and any(
                o.obs.kind == "send"
                and o.obs.name in ("ScribeMulticast", "ScribePublish")
                and o.obs.event == m[3]
                for o in b
            )
        ):
            return True
    return False


def observed_scribe_runs(run: ObservedRun) -> list[ScribeRun]:
    """One mapped record per key with a member (module doc)."""
    out: list[ScribeRun] = []
    for key, blocks in sorted(_blocks(run.log).items()):
        g = _run_group(key, blocks)
        group = int(key, 16)
        if not g.subd:
            continue
        if g.root is None:
            out.append(ScribeRun(group, [], frozenset(), frozenset(), 0, "no root observed"))
            continue
        pid = {n: sha1_id(n) for n in {g.root, *g.parents, *g.parents.values(), *g.subd}}
        ids = embed(pid[g.root], {pid[p]: pid[q] for p, q in g.parents.items()})
        if ids is None:
            out.append(ScribeRun(group, [], frozenset(), frozenset(), 0, "no embedding"))
            continue
        spec = {n: ids[pid[n]] for n in pid}
        pub = {e: j for j, e in enumerate(g.published, start=1)}
        states: list[dict[str, TlaValue]] = []
        problem = g.problem
        try:
            for r in g.raw:
                states.append(_state(r, spec, pub))
        except KeyError as exc:
            problem = problem or f"{exc} outside the map"
        states = [s for k, s in enumerate(states) if k == 0 or s != states[k - 1]]
        cand = frozenset(spec[p] for p in g.subd)
        out.append(ScribeRun(group, states, frozenset(spec.values()), cand, len(pub), problem))
    return out


def _state(r: tuple[object, ...], spec: dict[str, int], pub: dict[str, int]) -> dict[str, TlaValue]:
    inT, par, ch, mem, subd, flight, got, published, active_at, clean = r
    assert isinstance(inT, frozenset) and isinstance(par, frozenset) and isinstance(ch, frozenset)
    assert isinstance(mem, frozenset) and isinstance(subd, frozenset)
    assert isinstance(flight, frozenset) and isinstance(got, frozenset)
    assert isinstance(published, tuple) and isinstance(active_at, frozenset)
    assert isinstance(clean, frozenset)
    pars, chs = dict(par), dict(ch)
    msgs = frozenset(
        Rec(t=t, s=spec[s], d=spec[d], e=pub[e] if t == "mc" else 0, ep=0, k=k)
        for (t, s, d, e), k in flight
    )
    return {
        "alive": frozenset(spec.values()),
        "down": frozenset(),
        "inT": frozenset((spec[p], p in inT) for p in spec),
        "par": frozenset((spec[p], spec[pars[p]] if p in pars else 0) for p in spec),
        "ch": frozenset((spec[p], frozenset(spec[c] for c in chs.get(p, ()))) for p in spec),
        "mem": frozenset((spec[p], p in mem) for p in spec),
        "subd": frozenset(spec[p] for p in subd),
        "msgs": msgs,
        "epoch": 0,
        "dirty": False,
        "fails": 0,
        "got": frozenset(((pub[e], spec[p]), c) for (e, p), c in got),
        "published": frozenset(pub[e] for e in published),
        "activeAt": frozenset((pub[e], frozenset(spec[p] for p in a)) for e, a in active_at),
        "clean": frozenset((pub[e], c) for e, c in clean),
    }


def validate_observed(run: ObservedRun) -> list[tuple[str, Validation | None]] | None:
    """Each key's validation against Scribe.tla (None for a key outside the map), or None when
    the run is outside the map's bound (`fits` names it)."""
    if fits(run) is not None:
        return None
    return [
        (f"{r.group:040x}", validate_scribe(r, "TVScribeObserved"))
        for r in observed_scribe_runs(run)
    ]
