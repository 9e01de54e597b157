"""TLA+ trace validation of observed LBDD trees (conformance/OBSERVATIONS.md, "thesis and
lbdd"): the `EventDelivery` copies an implementation reports, the built-in's or an outside
program's, are turned into the dissemination record of properties/lbdd/trace_export.py and
validated against spec/lbdd/LBDD.tla by the same abstraction map.

One tree per (event, origin, tree id) of the copies judged as LBDD (claim `lbdd`, or
`strategy` `lbdd` under `thesis`). Every node of the tree forwards from the same view (the
tree's origin and members: the views agree, LBDD §3.5.1), in the order of its first copy sent;
a member that sends nothing is recorded as forwarding to no one after every sender, so a node
whose slice of the next bucket is non-empty but that sent nothing is a step outside the spec's
Next (a member left out), as is a copy along an edge that is not the node's slice (a wrong
bucket or rank). Trees that do not fit the map's three buckets are not validated (`None`).
"""

from __future__ import annotations

from collections import defaultdict

from pubsub_spec.conformance.protocol_rules.base import ObservedRun
from pubsub_spec.properties.lbdd.trace_export import LbddRun, validate_run
from pubsub_spec.properties.tracecheck import Validation

TreeKey = tuple[str, str, str]  # event, origin, tree id


def observed_trees(run: ObservedRun) -> dict[TreeKey, LbddRun]:
    """The dissemination record of each observed LBDD tree (module doc)."""
    members: dict[TreeKey, list[str]] = {}
    children: dict[TreeKey, dict[str, list[str]]] = defaultdict(dict)
    received: dict[TreeKey, dict[str, int]] = defaultdict(dict)
    for o in run.log:
        ob = o.obs
        f = ob.fields
        if ob.kind != "send" or ob.name != "EventDelivery" or ob.to is None:
            continue
        if run.system != "lbdd" and f.get("strategy") != "lbdd":
            continue
        key = (ob.event or "", str(f.get("origin")), str(f.get("tree_id", "")))
        members.setdefault(key, [str(m) for m in f.get("members") or ()])
        children[key].setdefault(ob.node, []).append(ob.to)
        received[key][ob.to] = received[key].get(ob.to, 0) + 1
    out: dict[TreeKey, LbddRun] = {}
    for key, ms in members.items():
        origin = key[1]
        nodes = tuple(sorted({origin, *ms}))
        view = frozenset(nodes)
        sent = children[key]
        order = [*sent, *(n for n in received[key] if n not in sent)]
        forwards = tuple((n, view - {n}, tuple(sent.get(n, ()))) for n in order)
        out[key] = LbddRun(origin, nodes, frozenset(nodes), forwards, dict(received[key]))
    return out


def validate_observed(run: ObservedRun) -> list[tuple[TreeKey, Validation | None]]:
    """Each observed tree's validation against LBDD.tla (None: it does not fit the map)."""
    return [
        (key, validate_run(tree, "TVLBDDObserved"))
        for key, tree in sorted(observed_trees(run).items())
    ]
