"""Model-derived step vectors of Kyra (docs/steps.md, "Model-derived vectors"): every distinct
(state, action) pair of the TLA+ model spec/kyra/MCKyraRouting.tla at its CI bound whose
action is one handler call of one server becomes a `kyra/<handler>/model-kyra-NNN` vector.

The pinned checker exports the model's state graph (conformance/steps/model_graph.py). The
abstraction map of the Kyra trace validation (properties/kyra/trace_export.py, docs/tla.md
"Trace validation") is read backwards, every constant taken from the model module and the CI
bound of spec/manifest.json:

- server i -> `n{i-1}`; subscription s -> `s{s}` at `n{Orig[s]-1}` with the predicate
  `Ext[s]` on the one int attribute `k` of schema `kv` (the model's keys); event e -> `e{e}`
  published at `n{Pub[e]-1}` with `k = Key[e]`;
- `Zone[n]` and `Y[t]` -> the zones holding exactly those keys, half-open `[a, b + 1)` and the
  last one closed at the domain's max (K-D1: what the reference's equal-width cut of the domain
  gives these cliques and trees); tree t -> `kv/t{t-1}`, with n's neighbours `Adj[t][n]` when n
  is a member (its zone overlaps `Y[t]`, §III);
- server n's pre-state: `subs` = the started, not unsubscribed subscriptions with
  `Orig[s] = n`; `proxy` = `proxy[n]`; `tables` = `tab[t][n]`, each <<d, s, p>> the entry of
  s from proxy p under direction d, restricted to `Zone[p]` and `Y[t]` (K-D4);
- `status`: the started subscriptions the step asks about, active unless unsubscribed, with
  seqs ordered as the seq rule of K-D12 reads them (s before e exactly when s is in
  `subAt[e]`);
- the input: `Subscribe(s)` -> the op `subscribe`; `Publish(e)` -> the op `publish`; the
  message an action consumes -> its declared message (`move` SubMove, `prop` SubPropagate,
  `zone` EventToZone, `route` EventRoute, `notify` Notify), received by `m.to` from `m.from`.

`Unsubscribe(s)` is not one server's step: the model forgets s at every proxy and every table
at once, at quiescence (the op with every UnsubMove and UnsubPropagate it causes; the map
makes them one step), so it gives no vector. Each pair is also a check of the model against
the reference: the messages the action adds to `msgs` must be the reference's sends, and the
server's `proxy`, `tab`, own subscriptions and the deliveries (`dcount`) after it the
reference's post-state, or the generation stops."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

from pubsub_spec.conformance.steps import model_graph
from pubsub_spec.conformance.steps.base import JSON, Case, Outcome, canonical

available = model_graph.available

MODEL = "MCKyraRouting"  # spec/manifest.json's name of the model (its module and CI bound)
SCHEMA = "kv"
ATTR = "k"
# model actions that are not one server's step (docs/steps.md, "Model-derived vectors")
SKIPPED = {"Unsubscribe": "every proxy and table forgets s at once, at quiescence"}
MSG_TYPES = {"move": "SubMove", "prop": "SubPropagate", "zone": "EventToZone",
             "route": "EventRoute", "notify": "Notify"}  # fmt: skip

Msg = tuple[str, int, int, int, int, int, int, frozenset[int]]  # t, from, to, tree, s, p, e, subs


def _spec() -> Path:
    return Path(str(resources.files("pubsub_spec") / "spec"))


def bound() -> tuple[str, str, dict[str, str]]:
    """The model's module, cfg and CI constants (spec/manifest.json)."""
    manifest = json.loads((_spec() / "manifest.json").read_text())
    (row,) = [r for r in manifest["models"] if r["name"] == MODEL]
    return row["module"], row["cfg"], dict(row["ci"]["constants"])


def _parse(text: str) -> Any:
    m = re.fullmatch(r"\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*", text)
    if m:
        return frozenset(range(int(m.group(1)), int(m.group(2)) + 1))
    return model_graph.value(text)


def constants() -> dict[str, Any]:
    """The model's constants: the cfg's values, its `X <- MCX` definitions from the module,
    then the CI overrides."""
    module, cfg, ci = bound()
    defs = dict(re.findall(r"^(MC\w+) == (.*?)(?=^\S|\Z)", (_spec() / module).read_text(),
                           re.M | re.S))  # fmt: skip
    out: dict[str, Any] = {}
    body = (_spec() / cfg).read_text().split("INIT")[0]
    for name, op, v in re.findall(r"^\s*(\w+)\s*(<-|=)\s*(.+?)\s*$", body, re.M):
        out[name] = _parse(defs[v] if op == "<-" else v)
    out.update({k: _parse(v) for k, v in ci.items()})
    return out


class _Map:
    """The abstraction map read backwards for the model's constants (module doc)."""

    def __init__(self, c: dict[str, Any]) -> None:
        self.c = c
        self.servers = sorted(c["Servers"])
        self.keys = sorted(c["Keys"])
        self.trees = list(range(1, c["NTrees"] + 1))
        self.clique = {n: c["Clique"][n - 1] for n in self.servers}
        self.zone = {n: c["Zone"][n - 1] for n in self.servers}
        self.y = {t: c["Y"][t - 1] for t in self.trees}
        self.adj = {t: {n: c["Adj"][t - 1][n - 1] for n in self.servers} for t in self.trees}

    def name(self, n: int) -> str:
        return f"n{n - 1}"

    def num(self, name: str) -> int:
        return int(name[1:]) + 1

    def tree(self, t: int) -> str:
        return f"{SCHEMA}/t{t - 1}"

    def box(self, keys: frozenset[int]) -> JSON:
        a, b = min(keys), max(keys)
        assert keys == frozenset(range(a, b + 1)), f"a zone of contiguous keys: {sorted(keys)}"
        top = max(self.keys)
        return [[a, top, True]] if b == top else [[a, b + 1, False]]

    def members(self, t: int) -> set[int]:
        return {n for n in self.servers if self.zone[n] & self.y[t]}  # §III: trees one joins

    def sub(self, s: int) -> JSON:
        ext = self.c["Ext"][s - 1]
        assert ext == frozenset(range(min(ext), max(ext) + 1)), "an extent of contiguous keys"
        return {"id": f"s{s}", "subscriber": self.name(self.c["Orig"][s - 1]),
                "schema": SCHEMA, "predicates": [[ATTR, min(ext), max(ext)]]}  # fmt: skip

    def event(self, e: int, seq: int) -> JSON:
        return {"id": f"e{e}", "publisher": self.name(self.c["Pub"][e - 1]), "schema": SCHEMA,
                "values": [[ATTR, self.c["Key"][e - 1]]], "seq": seq}  # fmt: skip

    def entry(self, s: int, p: int, t: int) -> JSON:
        """K-D4: the entry s ∩ Z_p ∩ Y_t as proxy p propagated it on tree t."""
        ext = self.c["Ext"][s - 1]
        return {"sub": self.sub(s), "proxy": self.name(p), "extent": [[min(ext), max(ext)]],
                "zones": [self.box(self.zone[p]), self.box(self.y[t])]}  # fmt: skip

    def seqs(self, st: dict[str, Any]) -> tuple[dict[int, int], dict[int, int]]:
        """Seqs of the published events and the started subscriptions consistent with the seq
        rule (K-D12): an active s precedes e exactly when s is in subAt[e]."""
        active = st["started"] - st["unsubbed"]
        events = sorted(st["published"], key=lambda e: (len(st["subAt"][e - 1]), e))
        ev = {e: 1000 * (i + 1) for i, e in enumerate(events)}
        subs = {}
        for s in sorted(st["started"]):
            after = [ev[e] for e in events if s in active and s not in st["subAt"][e - 1]]
            subs[s] = max(after, default=0) + s
        for s in active:
            for e in events:
                if (s in st["subAt"][e - 1]) != (subs[s] < ev[e]):
                    raise AssertionError(f"no op order gives subAt of state {st}")
        return ev, subs

    def pre(self, st: dict[str, Any], n: int, named: set[int]) -> JSON:
        """Server n's pre-state in the model's state `st` (module doc)."""
        _, seqs = self.seqs(st)
        active = st["started"] - st["unsubbed"]
        tables: dict[str, JSON] = {}
        for t in self.trees:
            by_dir: dict[str, list[tuple[str, str, JSON]]] = {}
            for d, s, p in st["tab"][t - 1][n - 1]:
                by_dir.setdefault(self.name(d), []).append((f"s{s}", self.name(p),
                                                            self.entry(s, p, t)))  # fmt: skip
            if by_dir:
                tables[self.tree(t)] = {d: [x for _, _, x in sorted(es, key=lambda x: x[:2])]
                                        for d, es in sorted(by_dir.items())}  # fmt: skip
        proxy = sorted(st["proxy"][n - 1])
        node = {"name": self.name(n),
                "subs": [self.sub(s) for s in sorted(active, key=lambda s: f"s{s}")
                         if self.c["Orig"][s - 1] == n],
                "proxy": [self.sub(s) for s in proxy], "tables": tables}  # fmt: skip
        asked = {s for s in st["started"] if self.c["Orig"][s - 1] == n} | set(proxy) | named
        status = [[f"s{s}", self.name(self.c["Orig"][s - 1]), seqs[s], s in active]
                  for s in sorted(asked & st["started"], key=lambda s: f"s{s}")]  # fmt: skip
        trees = [{"name": self.tree(t), "zone": self.box(self.y[t]),
                  "neighbours": sorted((self.name(x) for x in self.adj[t][n]), key=self.num)
                  if n in self.members(t) else None} for t in self.trees]  # fmt: skip
        clique = sorted(self.clique[n])
        layout = {"attrs": [ATTR], "trees": trees,
                  "zones": {self.name(z): self.box(self.zone[z]) for z in clique}}  # fmt: skip
        schema = {"name": SCHEMA, "attributes": [{"name": ATTR, "type": "int",
                                                  "min": min(self.keys),
                                                  "max": max(self.keys)}]}  # fmt: skip
        ctx = {"schemas": [schema], "matching": "strict",
               "clique": [self.name(z) for z in clique], "layouts": {SCHEMA: layout},
               "status": status}  # fmt: skip
        return {"node": node, "context": ctx}

    def message(self, m: dict[str, Any], st: dict[str, Any]) -> JSON:
        """The declared message a model message maps onto."""
        ev, _ = self.seqs(st)
        out: dict[str, JSON] = {"type": MSG_TYPES[m["t"]], "from": self.name(m["from"])}
        if m["t"] == "move":
            out["sub"] = self.sub(m["s"])
        elif m["t"] == "prop":
            out.update(tree=self.tree(m["tree"]), **self.entry(m["s"], m["p"], m["tree"]))
        else:
            out["event"] = self.event(m["e"], ev[m["e"]])
            if m["t"] == "route":
                out["tree"] = self.tree(m["tree"])
            if m["t"] == "notify":
                out["subs"] = [f"s{s}" for s in sorted(m["subs"], key=lambda s: f"s{s}")]
        return out

    def model_msg(self, m: dict[str, Any]) -> Msg:
        return (m["t"], m["from"], m["to"], m["tree"], m["s"], m["p"], m["e"],
                frozenset(m["subs"]))  # fmt: skip

    def covering_tree(self, key: int) -> int:
        (t,) = [t for t in self.trees if key in self.y[t]]
        return t

    def sent(self, send: JSON) -> Msg:
        """A send of the reference as a model message (the trace validation's forward map)."""
        m = send["fields"]["message"]
        t = {v: k for k, v in MSG_TYPES.items()}[m["type"]]
        e = int(m["event"]["id"][1:]) if "event" in m else 0
        tree = int(m["tree"].rsplit("/t", 1)[1]) + 1 if "tree" in m else 0
        if t == "zone":
            tree = self.covering_tree(self.c["Key"][e - 1])
        s = int(m["sub"]["id"][1:]) if "sub" in m else 0
        p = self.num(m["proxy"]) if "proxy" in m else 0
        subs = frozenset(int(x[1:]) for x in m.get("subs", ()))
        return (t, self.num(send["node"]), self.num(send["to"]), tree, s, p, e, subs)


def _agree(mp: _Map, s: dict[str, Any], t: dict[str, Any], n: int, added: set[Msg],
           out: Outcome, what: str) -> None:  # fmt: skip
    """Stop on a disagreement between the model's successor and the reference's outcome."""
    if out.invalid is not None:
        raise AssertionError(f"{what}: the reference refuses it ({out.invalid})")
    sends = [mp.sent(x) for x in out.sends]
    post = out.post["node"]
    got: dict[str, set[Any]] = {
        "sends": set(sends),
        "proxy": {int(x["id"][1:]) for x in post["proxy"]},
        "tab": {(mp.trees[[mp.tree(k) for k in mp.trees].index(tree)], mp.num(d),
                 int(x["sub"]["id"][1:]), mp.num(x["proxy"]))
                for tree, dirs in post["tables"].items() for d, xs in dirs.items()
                for x in xs},
        "subs": {int(x["id"][1:]) for x in post["subs"]},
        "delivered": {(int(e[1:]), int(x[1:])) for e, x in out.post["delivered"]},
    }  # fmt: skip
    want: dict[str, set[Any]] = {
        "sends": set(added),
        "proxy": set(t["proxy"][n - 1]),
        "tab": {(k, *x) for k in mp.trees for x in t["tab"][k - 1][n - 1]},
        "subs": {x for x in t["started"] - t["unsubbed"] if mp.c["Orig"][x - 1] == n},
        "delivered": {q for q, c in t["dcount"].items() if c > s["dcount"][q]},
    }
    for k in want:
        if got[k] != want[k] or (k == "sends" and len(sends) != len(set(sends))):
            raise AssertionError(f"{what}: the model's {k} {sorted(want[k], key=str)}, the "
                                 f"reference's {sorted(got[k], key=str)}")  # fmt: skip


def cases(apply: Callable[[JSON, JSON], Outcome]) -> Iterator[Case]:
    """The distinct model-derived cases (`apply`: the Kyra step, checked against the model's
    successor on every pair)."""
    module, cfg, ci = bound()
    mp = _Map(constants())
    graph = model_graph.export(module, cfg, ci)
    seen: set[str] = set()
    k = 0
    for a, b, action in graph.edges:
        if action in SKIPPED:
            continue
        s, t = graph.states[a], graph.states[b]
        before, after = {mp.model_msg(m) for m in s["msgs"]}, {mp.model_msg(m) for m in t["msgs"]}
        ev, subs = mp.seqs(s)
        if action == "Subscribe":
            (x,) = t["started"] - s["started"]
            n, named = mp.c["Orig"][x - 1], {x}
            step_input: JSON = {"op": "subscribe", "sub": mp.sub(x),
                                "seq": max(ev.values(), default=0) + x}  # fmt: skip
        elif action == "Publish":
            (e,) = t["published"] - s["published"]
            n, named = mp.c["Pub"][e - 1], set()
            seq = 1000 * (len(ev) + 1) + max(subs.values(), default=0)
            step_input = {"op": "publish", "event": mp.event(e, seq)}
        else:
            (m,) = [x for x in s["msgs"] if mp.model_msg(x) not in after]
            n, named = m["to"], set(m["subs"]) | ({m["s"]} if m["s"] else set())
            step_input = mp.message(m, s)
            before -= {mp.model_msg(m)}
        pre = mp.pre(s, n, named)
        key = canonical([pre, step_input])
        if key in seen:
            continue
        seen.add(key)
        what = f"{MODEL}'s {action} at server {n}"
        _agree(mp, s, t, n, after - before, apply(pre, step_input), what)
        handler = step_input.get("type", step_input.get("op"))
        yield Case(handler, f"model-kyra-{k:03d}", pre, step_input)
        k += 1
