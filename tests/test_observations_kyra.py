"""Protocol observations of Kyra, Siena and the multicast groups (Cao & Singh, INFOCOM 2004;
conformance/OBSERVATIONS.md, section "kyra, siena, mcgroups") and their rules
(conformance/protocol_rules/kyra.py):

- reporting changes nothing: the same event-log hash and deliveries with and without an
  observer, per system;
- the built-ins report their declared vocabulary and conform to their rules on the default
  conform generators' small traces;
- every rule rejects a log mutated to break it, naming its own id."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

import jsonschema
import pytest

from pubsub_spec.conformance.faults import default_traces
from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.observed import judge_protocol, observe, observed_run
from pubsub_spec.conformance.protocol_rules.base import Observed, ObservedRun
from pubsub_spec.conformance.protocol_rules.kyra import DISSEMINATION, RULES, STATES, SUBSCRIPTION
from pubsub_spec.conformance.traceio import read_trace
from pubsub_spec.reference.common.matching import matches
from pubsub_spec.reference.common.ops import Publish, Subscribe, Trace
from pubsub_spec.reference.common.oracle import Delivery, expected_deliveries
from pubsub_spec.reference.kyra.info import INFOS
from pubsub_spec.reference.kyra.mcgroups import McGroupsSystem
from pubsub_spec.reference.kyra.siena import SienaSystem
from pubsub_spec.reference.kyra.system import KyraSystem
from pubsub_spec.reference.sim.observe import Observation, send
from pubsub_spec.reference.sim.run import Driver, compare
from pubsub_spec.reference.sim.system import SystemInfo, needed_features
from tests.test_kyra_examples import FIG2_EDGES, FIG4_CLIQUES, FIG4_EDGES, L, N, fig_trace

SYSTEMS = {info.name: info for info in INFOS}
Log = list[Observed]


def _run(info: SystemInfo, trace: Trace, observe: bool) -> tuple[str, list[Delivery], Log]:
    """Drive the system through the trace (reference.sim.run.Driver) with or without an
    observer; the observations carry the seq of the op being applied."""
    system = info.variants[0].make(trace)
    log: Log = []
    seq = 0

    def record(obs: Observation) -> None:
        log.append(Observed(seq, obs))

    if observe:
        system.observer = record
    driver = Driver(trace, system)
    for op in trace.ops:
        seq = op.seq
        driver.apply(op)
    result = driver.finish()
    return result.event_log_hash, list(result.deliveries), log


@cache
def _uniform() -> Trace:
    return GENERATORS["uniform"](1, 0, "small")


@cache
def _observed(system: str) -> ObservedRun:
    trace = _uniform()
    _, deliveries, log = _run(SYSTEMS[system], trace, True)
    return ObservedRun(system, trace, tuple(log), tuple(deliveries))


def _supported(info: SystemInfo, trace: Trace) -> bool:
    return needed_features(trace) <= info.features


# -- emission --------------------------------------------------------------------------------
@pytest.mark.parametrize("system", sorted(SYSTEMS))
@pytest.mark.parametrize("generator", ["uniform", "partial-lenient", "degenerate", "shared-names"])
def test_observing_changes_neither_hash_nor_deliveries(system: str, generator: str) -> None:
    info = SYSTEMS[system]
    trace = GENERATORS[generator](1, 1, "tiny")
    if not _supported(info, trace):
        pytest.skip(f"{system} lacks a feature of {generator}")
    plain_hash, plain, none = _run(info, trace, False)
    seen_hash, seen, log = _run(info, trace, True)
    assert none == []
    assert log, "an observed run reports observations"
    assert seen_hash == plain_hash
    assert seen == plain


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_reports_only_its_declared_vocabulary(system: str) -> None:
    run = _observed(system)
    declared = {m.name for m in SYSTEMS[system].message_types}
    sends = {o.obs.name for o in run.log if o.obs.kind == "send"}
    states = {o.obs.name for o in run.log if o.obs.kind == "state"}
    assert sends <= declared
    assert DISSEMINATION[system] | SUBSCRIPTION[system] <= declared
    assert states <= STATES[system]
    # every message carries its event or subscription; no message to oneself is reported
    for o in run.log:
        if o.obs.kind == "send":
            assert (o.obs.event is None) != (o.obs.sub is None), o
            assert o.obs.to != o.obs.node, o
    # the trace's nodes are the servers
    nodes = {f"n{i}" for i in range(run.trace.initial_nodes)}
    assert {o.obs.node for o in run.log} <= nodes


def test_kyra_messages_counted_as_reported() -> None:
    """One send observation per counted message (the metrics count network messages only)."""
    info = SYSTEMS["kyra"]
    trace = _uniform()
    system = info.variants[0].make(trace)
    log: list[Observation] = []
    system.observer = log.append
    driver = Driver(trace, system)
    for op in trace.ops:
        driver.apply(op)
    result = driver.finish()
    counted = {k: v for k, v in result.metrics.sends.items() if v}
    reported: dict[str, int] = {}
    for o in log:
        if o.kind == "send":
            reported[o.name] = reported.get(o.name, 0) + 1
    assert reported == counted


# -- the built-ins conform -------------------------------------------------------------------
@cache
def _default_runs() -> list[ObservedRun]:
    runs = []
    for trace in default_traces(seed=1, count=3, profile="small"):
        for name, info in SYSTEMS.items():
            if _supported(info, trace):
                _, deliveries, log = _run(info, trace, True)
                runs.append(ObservedRun(name, trace, tuple(log), tuple(deliveries)))
    return runs


def test_builtins_conform_on_the_default_generators() -> None:
    runs = _default_runs()
    assert {r.system for r in runs} == set(SYSTEMS)
    assert len(runs) >= 3 * 30
    for run in runs:
        for rule in RULES[run.system]:
            dev = rule.check(run, run)
            assert dev is None, f"{run.system} on {run.trace.trace_id}: {dev.summary()}"


def test_the_rules_are_about_the_messages_they_see() -> None:
    """The reference runs exercise every message type of each system the rules read (so that
    conforming means something)."""
    names: dict[str, set[str]] = {r.system: set() for r in _default_runs()}
    for run in _default_runs():
        names[run.system] |= {o.obs.name for o in run.log}
    assert {"SubMove", "SubPropagate", "EventToZone", "EventRoute", "Notify"} <= names["kyra"]
    assert {"SubPropagate", "UnsubPropagate", "EventRoute"} <= names["siena"]
    assert {"EventToGroup", "EventMulticast", "group-join"} <= names["mcgroups"]


# -- each rule rejects a log that breaks it --------------------------------------------------
Mutation = Callable[[ObservedRun], Log]


def _first(log: Sequence[Observed], pred: Callable[[Observation], bool]) -> int:
    return next(i for i, o in enumerate(log) if pred(o.obs))


def _edit(run: ObservedRun, pred: Callable[[Observation], bool], **changes: object) -> Log:
    """The log with the first observation matching `pred` changed (fields merged)."""
    log = list(run.log)
    i = _first(log, pred)
    obs = log[i].obs
    fields = dict(obs.fields)
    fields.update(changes.pop("fields", {}))  # type: ignore[call-overload]
    log[i] = Observed(log[i].seq, dataclasses.replace(obs, fields=fields, **changes))  # type: ignore[arg-type]
    return log


def _duplicate(run: ObservedRun, name: str) -> Log:
    log = list(run.log)
    i = _first(log, lambda o: o.name == name)
    return [*log[: i + 1], log[i], *log[i + 1 :]]


def _drop(run: ObservedRun, pred: Callable[[Observation], bool], last: bool = False) -> Log:
    log = list(run.log)
    idx = [i for i, o in enumerate(log) if pred(o.obs)]
    i = idx[-1] if last else idx[0]
    return log[:i] + log[i + 1 :]


def _named(name: str) -> Callable[[Observation], bool]:
    return lambda o: o.name == name


def _fields(run: ObservedRun, name: str) -> list[Observation]:
    return [o.obs for o in run.log if o.obs.name == name]


def _servers(run: ObservedRun) -> list[str]:
    return [f"n{i}" for i in range(run.trace.initial_nodes)]


def _zones_overlap(run: ObservedRun) -> Log:
    # a member of a clique of >= 2 servers claims the whole domain
    z = next(o for o in _fields(run, "zone") if len(o.fields["clique"]) > 1)
    schema = next(s for s in run.trace.schemas if s.name == z.fields["schema"])
    a = schema.attribute(str(z.fields["attr"]))
    return _edit(run, lambda o: o is z, fields={"zone": [a.min, a.max, True]})


def _tree_member_missing(run: ObservedRun) -> Log:
    t = next(o for o in _fields(run, "tree-join") if o.fields["neighbours"])
    return _drop(run, lambda o: o is t)


def _sub_moved_outside_clique(run: ObservedRun) -> Log:
    m = _fields(run, "SubMove")[0]
    z = next(o for o in _fields(run, "zone") if o.node == m.node)
    outside = next(s for s in _servers(run) if s not in z.fields["clique"])
    return _edit(run, lambda o: o is m, to=outside)


def _filter_wrong_direction(run: ObservedRun) -> Log:
    f = _fields(run, "filter-add")[0]
    other = next(s for s in _servers(run) if s not in (f.node, f.fields["direction"]))
    return _edit(run, lambda o: o is f, fields={"direction": other})


def _event_to_wrong_member(run: ObservedRun) -> Log:
    m = _fields(run, "EventToZone")[0]
    return _edit(
        run, lambda o: o is m, to=next(s for s in _servers(run) if s not in (m.node, m.to))
    )


def _route_on_non_covering_tree(run: ObservedRun) -> Log:
    """The fault the issue names: a Kyra event sent on a tree whose zone does not cover it."""
    r = _fields(run, "EventRoute")[0]
    trees = {str(o.fields["tree"]) for o in _fields(run, "tree-join")}
    schema = str(r.fields["tree"]).split("/")[0]
    other = sorted(t for t in trees if t.startswith(schema + "/") and t != r.fields["tree"])[0]
    return _edit(run, lambda o: o is r, fields={"tree": other})


def _flood(run: ObservedRun, name: str, on_tree: bool) -> Log:
    """Append one forward toward a direction from which no matching subscription came
    (flooding): an event sent to a neighbour whose filters do not cover it."""
    events = {op.event.id: op.event for op in run.trace.ops if isinstance(op, Publish)}
    subs = {op.sub.id: op.sub for op in run.trace.ops if isinstance(op, Subscribe)}
    if on_tree:  # Kyra: edges of each tree, entries keyed by (tree, server, direction)
        edges = {
            (str(o.fields["tree"]), o.node, n)
            for o in _fields(run, "tree-join")
            for n in o.fields["neighbours"]
        }
    else:
        edges = {
            ("", o.node, n) for o in _fields(run, "neighbours") for n in o.fields["neighbours"]
        }
    came: dict[tuple[str, str, str], list[str]] = {}
    for o in _fields(run, "SubPropagate"):
        came.setdefault((str(o.fields.get("tree", "")), o.to or "", o.node), []).append(o.sub or "")
    for r in _fields(run, name):
        e = events[r.event or ""]
        t = str(r.fields.get("tree", ""))
        for tree, a, b in sorted(edges):
            if tree != t or a != r.to or b == r.node:
                continue
            if not any(matches(subs[s], e, run.trace.matching) for s in came.get((t, a, b), [])):
                extra = send(name, a, b, event=e.id, **({"tree": t} if on_tree else {}))
                return [*run.log, Observed(run.log[-1].seq, extra)]
    raise AssertionError("no non-matching direction to flood")


def _notify_twice(run: ObservedRun) -> Log:
    return _duplicate(run, "Notify")


def _siena_extra_neighbour(run: ObservedRun) -> Log:
    n = _fields(run, "neighbours")[0]
    other = next(s for s in _servers(run) if s != n.node and s not in n.fields["neighbours"])
    return _edit(run, lambda o: o is n, fields={"neighbours": [*n.fields["neighbours"], other]})


def _group_map_differs(run: ObservedRun) -> Log:
    m = _fields(run, "group-map")[-1]
    groups = list(m.fields["groups"])
    groups[0] = max(groups) + 1
    return _edit(run, lambda o: o is m, fields={"groups": groups})


def _multicast_to_other_group(run: ObservedRun) -> Log:
    m = _fields(run, "EventMulticast")[0]
    return _edit(run, lambda o: o is m, fields={"group": int(m.fields["group"]) + 1})


def _group_join_from_a_stranger(run: ObservedRun) -> Log:
    store = _fields(run, "sub-store")[0]
    member = next(o for o in _fields(run, "group-join") if o.node != store.node)
    stranger = next(s for s in _servers(run) if s != store.node)
    join = send("GroupJoin", stranger, member.node, sub=store.sub, schema=member.fields["schema"],
                group=member.fields["group"], server=stranger)  # fmt: skip
    return [*run.log, Observed(run.log[-1].seq, join)]


def _group_cycle(run: ObservedRun) -> Log:
    joins = _fields(run, "group-join")
    adj: dict[tuple[object, object], dict[str, set[str]]] = {}
    for o in joins:
        g = adj.setdefault((o.fields["schema"], o.fields["group"]), {})
        g.setdefault(o.node, set()).update(o.fields["neighbours"])
    pairs = [
        (o, m)
        for o in joins
        for m, ns in sorted(adj[(o.fields["schema"], o.fields["group"])].items())
        if m != o.node and m not in o.fields["neighbours"] and o.node not in ns
    ]
    target, m = pairs[0]  # a group of three members or more has two non-adjacent ones
    return _edit(
        run, lambda x: x is target, fields={"neighbours": [*target.fields["neighbours"], m]}
    )


MUTATIONS: dict[str, tuple[str, Mutation]] = {
    "kyra/zones": ("kyra", _zones_overlap),
    "kyra/trees": ("kyra", _tree_member_missing),
    "kyra/subscription-movement": ("kyra", _sub_moved_outside_clique),
    "kyra/propagate-on-tree": ("kyra", lambda r: _duplicate(r, "SubPropagate")),
    "kyra/filters": ("kyra", _filter_wrong_direction),
    "kyra/event-to-zone": ("kyra", _event_to_wrong_member),
    "kyra/event-tree": ("kyra", lambda r: _duplicate(r, "EventRoute")),
    "kyra/covering-tree": ("kyra", _route_on_non_covering_tree),
    "kyra/notify": ("kyra", _notify_twice),
    "siena/server-tree": ("siena", _siena_extra_neighbour),
    "siena/subscription-broadcast": ("siena", lambda r: _drop(r, _named("SubPropagate"), True)),
    "siena/filters": ("siena", _filter_wrong_direction),
    "siena/event-tree": ("siena", lambda r: _duplicate(r, "EventRoute")),
    "siena/reverse-path": ("siena", lambda r: _flood(r, "EventRoute", on_tree=False)),
    "mcgroups/mapping": ("mcgroups", _group_map_differs),
    "mcgroups/event-group": ("mcgroups", _multicast_to_other_group),
    "mcgroups/event-tree": ("mcgroups", lambda r: _duplicate(r, "EventMulticast")),
    "mcgroups/all-members": ("mcgroups", lambda r: _drop(r, _named("EventMulticast"), True)),
    "mcgroups/membership": ("mcgroups", _group_join_from_a_stranger),
    "mcgroups/group-trees": ("mcgroups", _group_cycle),
}  # fmt: skip


def test_every_rule_has_a_mutation() -> None:
    assert set(MUTATIONS) == {r.id for rules in RULES.values() for r in rules}


@pytest.mark.parametrize("rule_id", sorted(MUTATIONS))
def test_rule_rejects_its_mutation(rule_id: str) -> None:
    system, mutate = MUTATIONS[rule_id]
    (rule,) = [r for r in RULES[system] if r.id == rule_id]
    run = _observed(system)
    assert rule.check(run, run) is None
    bad = dataclasses.replace(run, log=tuple(mutate(run)))
    dev = rule.check(bad, run)
    assert dev is not None, f"{rule_id} accepts its mutation"
    assert dev.rule == rule_id
    assert dev.source.startswith("Cao & Singh, Kyra, INFOCOM 2004, §")
    assert rule_id in dev.summary()


def test_kyra_flooding_toward_a_non_covering_direction_is_caught() -> None:
    """A second covering-tree fault: a forward on the right tree toward a neighbour none of
    whose entries admits the event."""
    run = _observed("kyra")
    (rule,) = [r for r in RULES["kyra"] if r.id == "kyra/covering-tree"]
    dev = rule.check(dataclasses.replace(run, log=tuple(_flood(run, "EventRoute", True))), run)
    assert dev is not None and dev.rule == "kyra/covering-tree"
    assert "admits" in dev.detail
    assert dev.index == len(run.log)


# -- the JSON Schema -------------------------------------------------------------------------
SCHEMA = Path(__file__).parent.parent / "conformance" / "observations" / "kyra.schema.json"


def _validator(system: str) -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator({**schema, "anyOf": [{"$ref": f"#/$defs/{system}"}]})


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_every_reported_line_fits_the_schema(system: str) -> None:
    check = _validator(system)
    run = _observed(system)
    for o in run.log:
        line = {"type": "obs", "seq": o.seq, **o.obs.to_json()}
        errors = list(check.iter_errors(json.loads(json.dumps(line))))
        assert not errors, (line, errors[0].message)


@pytest.mark.parametrize(
    ("system", "line"),
    [
        ("kyra", {"kind": "state", "name": "zone", "node": "n1",
                  "fields": {"schema": "s", "attr": "a", "zone": [0, 5], "clique": ["n1"]}}),
        ("kyra", {"kind": "send", "name": "EventRoute", "node": "n1", "to": "n2", "event": "e1"}),
        ("kyra", {"kind": "send", "name": "Notify", "node": "n1", "to": "n2", "event": "e1",
                  "fields": {"subs": []}}),
        ("siena", {"kind": "send", "name": "EventToZone", "node": "n1", "to": "n2", "event": "e"}),
        ("mcgroups", {"kind": "send", "name": "EventMulticast", "node": "n1", "event": "e1",
                      "fields": {"group": 0}}),
        ("mcgroups", {"kind": "state", "name": "group-join", "node": "n1",
                      "fields": {"schema": "s", "group": -1, "neighbours": []}}),
    ],
)  # fmt: skip
def test_the_schema_rejects_malformed_lines(system: str, line: dict[str, object]) -> None:
    """A zone without its closedness, a Kyra route without its tree, an empty Notify, a Kyra
    message under siena, a send without a receiver, a negative group."""
    assert not _validator(system).is_valid({"type": "obs", "seq": 1, **line})


def test_kyra_publisher_reached_again_as_a_relay_is_one_tree() -> None:
    """Kyra §III: the publisher hands its event to the covering clique member z* (EventToZone),
    which roots the route tree; the publisher may sit on that tree and relay the event once
    (an intra-clique hop and a tree hop, not a cycle). The reference does so on the default
    traces, and kyra/event-tree accepts it while rejecting a second copy to it."""
    (rule,) = [r for r in RULES["kyra"] if r.id == "kyra/event-tree"]
    relayed = 0
    for run in _default_runs():
        if run.system != "kyra":
            continue
        publisher = {
            op.event.id: op.event.publisher for op in run.trace.ops if isinstance(op, Publish)
        }
        hits = [
            i
            for i, o in enumerate(run.log)
            if o.obs.name == "EventRoute" and o.obs.to == publisher[o.obs.event or ""]
        ]
        if not hits:
            continue
        relayed += 1
        assert rule.check(run, run) is None
        i = hits[0]
        twice = (*run.log[: i + 1], run.log[i], *run.log[i + 1 :])
        dev = rule.check(dataclasses.replace(run, log=twice), run)
        assert dev is not None and dev.index == i + 1
    assert relayed >= 3


# -- the whole protocol level (generic rules, then the family's) -----------------------------
VECTORS = Path(__file__).parent.parent / "conformance" / "vectors"


def _protocol_level(traces: Sequence[Trace]) -> int:
    judged = 0
    for trace in traces:
        for name, info in SYSTEMS.items():
            if not _supported(info, trace):
                continue
            run = observed_run(name, trace)
            verdict = judge_protocol(run, run)
            assert verdict.status == "conforms", f"{name} {trace.trace_id}: {verdict.describe()}"
            judged += 1
    return judged


def test_builtins_conform_at_the_protocol_level_on_the_default_set() -> None:
    assert _protocol_level(default_traces(seed=1, count=1, profile="small")) >= 30


def test_builtins_conform_at_the_protocol_level_on_the_committed_vectors() -> None:
    paths = sorted(p for p in VECTORS.glob("*.ndjson") if not p.name.endswith(".expected.ndjson"))
    assert len(paths) >= 20
    assert _protocol_level([read_trace(p) for p in paths]) >= 20


# -- the paper's worked examples, observed ---------------------------------------------------
def _observed_system(system: KyraSystem | SienaSystem, trace: Trace, name: str) -> ObservedRun:
    return observe(system, trace, name)


def _event_hops(run: ObservedRun) -> list[tuple[str, str, str]]:
    return [
        (o.obs.name, L[o.obs.node], L[o.obs.to or ""])
        for o in run.log
        if o.obs.event is not None and o.obs.name != "Notify"
    ]


def test_fig4_event9_is_observed_as_the_paper_routes_it() -> None:
    """Kyra §III, Fig. 4: event 9 published at A goes first to C (zone 7-9), then on tree t2
    to H; the observations say so, and the run conforms to every kyra rule."""
    trace = fig_trace()

    def weight(a: str, b: str) -> float:  # the paper's tree edges are the MSTs
        return 1.0 if (L[a], L[b]) in FIG4_EDGES or (L[b], L[a]) in FIG4_EDGES else 10.0

    cliques = [tuple(N[x] for x in c) for c in FIG4_CLIQUES]
    run = _observed_system(KyraSystem(trace, cliques=cliques, weight=weight), trace, "kyra")
    assert _event_hops(run) == [("EventToZone", "A", "C"), ("EventRoute", "C", "H")]
    route = next(o.obs for o in run.log if o.obs.name == "EventRoute")
    assert route.fields == {"tree": "fig/t2"}
    zones = {L[o.obs.node]: o.obs.fields["zone"] for o in run.log if o.obs.name == "zone"}
    assert zones["C"] == [7, 9, True] and zones["D"] == [0, 5, False]
    for rule in RULES["kyra"]:
        assert rule.check(run, run) is None, rule.id


def test_fig2_event9_is_observed_as_the_paper_routes_it() -> None:
    """Kyra §II.A, Fig. 2: event 9 published at A follows A->C->E->F->G->H; the run conforms to
    every siena rule."""
    trace = fig_trace()
    edges = [(N[a], N[b]) if N[a] < N[b] else (N[b], N[a]) for a, b in FIG2_EDGES]
    run = _observed_system(SienaSystem(trace, edges=edges), trace, "siena")
    path = [("EventRoute", a, b) for a, b in zip("ACEFG", "CEFGH", strict=True)]
    assert _event_hops(run) == path
    for rule in RULES["siena"]:
        assert rule.check(run, run) is None, rule.id


def test_every_rule_is_documented() -> None:
    """conformance/OBSERVATIONS.md's section lists exactly the family's rule ids."""
    text = (Path(__file__).parent.parent / "conformance" / "OBSERVATIONS.md").read_text()
    section = text.split("## kyra, siena, mcgroups", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `((?:kyra|siena|mcgroups)/[a-z-]+)` \|", section, re.M))
    assert documented == {r.id for rules in RULES.values() for r in rules}
    assert "Format version 1" in section


def _grafting_run(generator: str, index: int) -> ObservedRun:
    """mcgroups whose offline step (§II.B, K-D10) knew only every third subscription: the
    others graft their servers onto the groups' trees (GroupJoin) while the trace runs."""
    trace = GENERATORS[generator](1, index, "small")
    known = tuple(op for op in trace.ops if not isinstance(op, Subscribe) or op.seq % 3 == 0)
    run = observe(McGroupsSystem(dataclasses.replace(trace, ops=known)), trace, "mcgroups")
    assert compare(expected_deliveries(trace), list(run.deliveries)).agree
    return run


@pytest.mark.parametrize(("generator", "index"), [("uniform", 0), ("partial-lenient", 1)])
def test_mcgroups_grafts_are_observed_and_conform(generator: str, index: int) -> None:
    run = _grafting_run(generator, index)
    joins = [o.obs for o in run.log if o.obs.name == "GroupJoin"]
    assert len(joins) >= 10
    grafted = {(o.node, o.fields["group"]) for o in joins}
    states = {
        (o.obs.node, o.obs.fields["group"])
        for o in run.log
        if o.obs.name == "group-join" and len(o.obs.fields["neighbours"]) == 1
    }
    assert grafted <= states  # each graft reported by the joining server, hanging from one member
    for rule in RULES["mcgroups"]:
        assert rule.check(run, run) is None, rule.id
    # a graft onto a non-member breaks the membership rule
    (rule,) = [r for r in RULES["mcgroups"] if r.id == "mcgroups/membership"]
    j = _first(run.log, _named("GroupJoin"))
    members = {o.obs.node for o in run.log[:j] if o.obs.name == "group-join"}
    stranger = next(s for s in _servers(run) if s not in members and s != run.log[j].obs.node)
    bad = _edit(run, lambda o: o is run.log[j].obs, to=stranger)
    dev = rule.check(dataclasses.replace(run, log=tuple(bad)), run)
    assert dev is not None and dev.index == j and "not a member" in dev.detail


def test_a_proxy_that_never_propagates_breaks_propagate_on_tree() -> None:
    """Kyra §III: a proxy routes on behalf of its proxy subscriptions on every tree it joins
    (its entries broadcast there, K-D4); a log without one proxy's propagation deviates."""
    run = _observed("kyra")
    (rule,) = [r for r in RULES["kyra"] if r.id == "kyra/propagate-on-tree"]
    first = next(o.obs for o in run.log if o.obs.name == "SubPropagate")
    key = (first.sub, first.fields["tree"], first.fields["proxy"])

    def same(o: Observation) -> bool:
        fields = (o.sub, o.fields.get("tree"), o.fields.get("proxy"))
        return o.name in ("SubPropagate", "filter-add") and fields == key

    bad = tuple(o for o in run.log if not same(o.obs))
    dev = rule.check(dataclasses.replace(run, log=bad), run)
    assert dev is not None and "never propagated" in dev.detail
    assert bad[dev.index or 0].obs.name == "proxy-store"
