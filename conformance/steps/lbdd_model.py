"""Model-derived step vectors of LBDD (docs/steps.md, "Model-derived vectors"): every distinct
(state, Forward(n)) pair of the TLA+ model spec/lbdd/MCLBDD.tla at a small bound becomes an
`EventDelivery` step of node n.

The model's state graph is exported by the pinned TLA+ checker (`tla --export-dot`, full
states); each edge whose successor adds one node n to `forwarded` is a Forward(n). It maps onto
one handler call through the abstraction of properties/lbdd/trace_export.py read backwards:
node i of the model gets a concrete address whose MD5 digest puts it in the real bucket
29 + b when the model puts it in bucket b (b = 1..3, the highest bit in which its 3-bit
digest differs from the publisher's), in the model's digest order inside each bucket
(decision D-L1); node 1 is the origin, every other node a member, and n's view is the model's
view[n] without n. The model's own choice, the targets it adds to `edges`, must be the sends of
the reference's handler: a disagreement stops the generation (the model and the reference are
checked against each other on every pair)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

from pubsub_spec.conformance.steps import model_graph
from pubsub_spec.conformance.steps.base import JSON, Case, canonical

available = model_graph.available

N = 5  # nodes of the model, as its CI bound in spec/manifest.json (digests 0..4, MaxFail 1)


def _digest(address: str) -> int:
    return int.from_bytes(hashlib.md5(address.encode("utf-8")).digest()[:4], "big")


def concrete_names(dig: list[int]) -> dict[int, str]:
    """Addresses for nodes 1..len(dig) realising the model's buckets and orders (module doc)."""
    src = "10.9.0.1"
    model_bucket = {i: _highest(dig[i - 1], dig[0]) for i in range(2, len(dig) + 1)}
    wanted: dict[int, list[int]] = {}
    for i, b in model_bucket.items():
        wanted.setdefault(b, []).append(i)
    found: dict[int, list[str]] = {b: [] for b in wanted}
    k = 0
    while any(len(found[b]) < len(wanted[b]) for b in wanted):
        k += 1
        a = f"10.9.{k // 256}.{k % 256}"
        real = (_digest(a) ^ _digest(src)).bit_length()
        b = real - 29
        if b in wanted and len(found[b]) < len(wanted[b]):
            found[b].append(a)
    out = {1: src}
    for b, nodes in wanted.items():
        addresses = sorted(found[b], key=lambda a: (_digest(a), a))
        for i, a in zip(sorted(nodes, key=lambda i: dig[i - 1]), addresses, strict=True):
            out[i] = a
    return out


def _highest(a: int, b: int) -> int:
    return (a ^ b).bit_length()


def cases(apply: Any) -> Iterator[Case]:
    """The distinct model-derived cases (`apply`: the LBDD handler, to check each against the
    model's targets)."""
    graph = model_graph.export("lbdd/MCLBDD.tla", "lbdd/MCLBDD.cfg", {"N": str(N)})
    states, edges = graph.states, graph.edges
    names = concrete_names(list(range(N)))  # MCDig: node i has digest i - 1
    members = sorted(names[i] for i in range(2, N + 1))
    seen: set[str] = set()
    k = 0
    for a, b, action in edges:
        if action != "Forward":
            continue
        s, t = states[a], states[b]
        (n,) = t["forwarded"] - s["forwarded"]
        model_targets = {y for (x, y) in t["edges"] if x == n}
        view = sorted(names[v] for v in s["view"][n - 1] if v != n)
        pre: JSON = {"node": {"name": names[n], "view": view, "buckets": None}}
        step_input: JSON = {"type": "EventDelivery", "event": "e-model", "origin": names[1],
                            "members": members, "tree_id": ""}  # fmt: skip
        key = canonical([pre, step_input])
        if key in seen:
            continue
        seen.add(key)
        sends = apply(pre, step_input).sends
        got = {x["to"] for x in sends}
        if got != {names[y] for y in model_targets}:
            raise AssertionError(
                f"LBDD.tla's Forward({n}) from view {sorted(s['view'][n - 1])} chooses "
                f"{sorted(model_targets)}; the reference sends to {sorted(got)}"
            )
        yield Case("EventDelivery", f"model-{k:03d}", pre, step_input)
        k += 1
