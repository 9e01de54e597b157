"""The thesis system's protocol observations and the rules of `thesis` and `lbdd`
(conformance/OBSERVATIONS.md, "thesis and lbdd"; conformance/protocol_rules/thesis.py).

Observing changes nothing (same event-log hash and deliveries, for every delivery strategy
and both engines); the built-in reference conforms on small traces of the default conform
generators; and each rule rejects a log broken for it, naming its id."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cache
from importlib import resources
from typing import Any

import jsonschema
import pytest

from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.observed import judge_protocol, observed_run
from pubsub_spec.conformance.protocol_rules import CLAIMABLE, STATES
from pubsub_spec.conformance.protocol_rules.base import Observed, ObservedRun
from pubsub_spec.conformance.protocol_rules.thesis import RULES, first_deviation, rule_ids
from pubsub_spec.reference.common.model import Event
from pubsub_spec.reference.common.ops import Publish, Subscribe, Trace
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.lbdd.algorithms import bucket_no, build_tree
from pubsub_spec.reference.registry import variants
from pubsub_spec.reference.sim.observe import Observation, send, state
from pubsub_spec.reference.sim.run import Driver, run_trace
from pubsub_spec.reference.sim.system import System
from pubsub_spec.reference.thesis.config import config_of
from pubsub_spec.reference.thesis.info import with_delivery
from pubsub_spec.reference.thesis.substrate_fast import FastTwoDTreeSystem
from pubsub_spec.reference.thesis.system import TwoDTreeSystem

BUILTINS = ("reference", "reference-multicast", "reference-lbdd")


@cache
def trace(gen: str, index: int = 0, profile: str = "tiny") -> Trace:
    return GENERATORS[gen](1, index, profile)


@cache
def run_of(builtin: str, gen: str, index: int = 0, profile: str = "tiny") -> ObservedRun:
    return observed_run(builtin, trace(gen, index, profile))


def events_of(t: Trace) -> dict[str, Event]:
    return {op.event.id: op.event for op in t.ops if isinstance(op, Publish)}


def subscribers_of(t: Trace) -> dict[str, str]:
    return {op.sub.id: op.sub.subscriber for op in t.ops if isinstance(op, Subscribe)}


Observing = tuple[str, list[Delivery], list[Observation]]


def observing(make: Callable[[Trace], System[Any]], t: Trace) -> Observing:
    system = make(t)
    log: list[Observation] = []
    system.observer = log.append
    driver = Driver(t, system)
    for op in t.ops:
        driver.apply(op)
    result = driver.finish()
    return result.event_log_hash, sorted(result.deliveries), log


# -- emission ------------------------------------------------------------------------------------
@pytest.mark.parametrize("builtin", BUILTINS)
@pytest.mark.parametrize("gen", ["uniform", "churn", "cutoff"])
def test_observing_changes_neither_hash_nor_deliveries(builtin: str, gen: str) -> None:
    t = trace(gen, 0, "small")
    make = variants()[builtin][1].make
    plain = run_trace(t, make, check=False)
    hashed, delivered, log = observing(make, t)
    assert hashed == plain.event_log_hash
    assert delivered == sorted(plain.deliveries)
    assert any(o.name == "EventDelivery" for o in log) and any(o.name == "split" for o in log)


def test_the_committed_simulate_hash_holds_with_an_observer() -> None:
    """The hash pinned by tests/test_cli_simulate_workload.py, with an observer set."""
    from pubsub_spec.reference.thesis.workload import thesis_trace

    t = thesis_trace(100, 5, 1000, 7)
    make = variants()["reference"][1].make
    hashed, _, log = observing(make, t)
    assert hashed[:16] == "409ccd5601f87655"
    assert len(log) > 10_000


@pytest.mark.parametrize("delivery", ["unicast", "multicast", "lbdd"])
def test_the_fast_engine_reports_the_same_observations(delivery: str) -> None:
    t = with_delivery(trace("churn", 0, "small"), delivery)  # type: ignore[arg-type]
    ref = observing(TwoDTreeSystem.for_trace, t)
    fast = observing(FastTwoDTreeSystem.for_trace, t)
    assert ref[0] == run_trace(t, TwoDTreeSystem.for_trace, check=False).event_log_hash
    assert fast[0] == ref[0]
    assert fast[2] == ref[2]


def test_every_observation_follows_the_schema() -> None:
    schema = resources.files("pubsub_spec") / "conformance/observations/thesis.schema.json"
    text = schema.read_text()
    validator = jsonschema.Draft202012Validator(json.loads(text))
    for builtin in BUILTINS:
        for o in run_of(builtin, "cutoff").log:
            line = {"type": "obs", "seq": o.seq, **o.obs.to_json()}
            json.loads(json.dumps(line))
            validator.validate(line)
    bad = {"type": "obs", "seq": 1, "kind": "send", "name": "ProbePub", "node": "n1", "to": "n2",
           "event": "e1", "fields": {"tree": "s/a", "bits": "012"}}  # fmt: skip
    assert not validator.is_valid(bad)


def test_the_claims_and_states_are_registered() -> None:
    assert {"thesis", "lbdd"} <= set(CLAIMABLE)
    assert {"split", "store", "lnrt", "match"} <= STATES["thesis"]


# -- the reference conforms ------------------------------------------------------------------------
GENS = ("uniform", "boundaries", "cutoff", "partial-lenient", "churn", "degenerate", "zipf")


@pytest.mark.parametrize("gen", GENS)
def test_the_reference_conforms(gen: str) -> None:
    for index in (0, 1):
        refs = {c: observed_run(b, trace(gen, index)) for c, b in
                (("thesis", "reference"), ("lbdd", "reference-lbdd"))}  # fmt: skip
        for builtin in BUILTINS:
            run = observed_run(builtin, trace(gen, index))
            verdict = judge_protocol(run, refs[run.system])
            assert verdict.status == "conforms", (gen, index, builtin, verdict.describe())
            if builtin == "reference-lbdd":  # its observations conform to `thesis` as well
                as_thesis = replace(run, system="thesis")
                assert first_deviation(RULES["thesis"], as_thesis) is None


def tiny_vectors() -> list[str]:
    from pubsub_spec.conformance.vectors import VECTORS

    return sorted(
        p.name for p in VECTORS.glob("*-tiny-*.ndjson") if not p.name.endswith(".expected.ndjson")
    )


@pytest.mark.parametrize("name", tiny_vectors())
def test_the_reference_conforms_on_the_committed_vectors(name: str) -> None:
    from pubsub_spec.conformance.traceio import read_trace
    from pubsub_spec.conformance.vectors import VECTORS

    t = read_trace(VECTORS / name)
    refs = {"thesis": observed_run("reference", t), "lbdd": observed_run("reference-lbdd", t)}
    for builtin in BUILTINS:
        run = observed_run(builtin, t)
        verdict = judge_protocol(run, refs[run.system])
        assert verdict.status == "conforms", (name, builtin, verdict.describe())


# -- each rule rejects a log broken for it -------------------------------------------------------
def with_log(run: ObservedRun, log: Sequence[Observation | Observed]) -> ObservedRun:
    return replace(run, log=tuple(o if isinstance(o, Observed) else Observed(1, o) for o in log))


def edited(
    run: ObservedRun,
    pick: Callable[[Observation], bool],
    edit: Callable[[Observation], list[Observation]],
) -> ObservedRun:
    """The run with the first observation picked replaced by `edit`'s observations."""
    out: list[Observed] = []
    done = False
    for o in run.log:
        if not done and pick(o.obs):
            out.extend(Observed(o.seq, e) for e in edit(o.obs))
            done = True
        else:
            out.append(o)
    assert done, "nothing to edit"
    return replace(run, log=tuple(out))


def fields(o: Observation, **changes: object) -> Observation:
    return replace(o, fields={**o.fields, **changes})


def rejects(system: str, rule: str, run: ObservedRun, first: bool = True) -> None:
    """The rule holds on the unmutated log's system and rejects `run`; with first=True it is
    also the first rule of the claim that deviates."""
    dev = rule_ids(system)[rule].check(run, run)
    assert dev is not None and dev.rule == rule
    if first:
        got = first_deviation(RULES[system], run)
        assert got is not None and got.rule == rule, got


def is_send(name: str, **want: object) -> Callable[[Observation], bool]:
    return lambda o: (
        o.kind == "send" and o.name == name and all(o.fields.get(k) == v for k, v in want.items())
    )


def is_state(name: str) -> Callable[[Observation], bool]:
    return lambda o: o.kind == "state" and o.name == name


def lbdd_run() -> ObservedRun:
    """A reference-lbdd run with a tree of at least three members (conforms)."""
    for gen in ("uniform", "boundaries", "partial-lenient", "zipf"):
        run = run_of("reference-lbdd", gen, 0, "small")
        if any(len(o.obs.fields.get("members", ())) >= 3 for o in run.log):
            assert first_deviation(RULES["lbdd"], run) is None
            return run
    raise AssertionError("no LBDD tree with three members")


def big_tree(run: ObservedRun) -> Callable[[Observation], bool]:
    return lambda o: o.name == "EventDelivery" and len(o.fields.get("members", ())) >= 3


def test_lbdd_fields_rejects_unsorted_members() -> None:
    run = lbdd_run()
    bad = edited(run, big_tree(run), lambda o: [fields(o, members=o.fields["members"][::-1])])
    rejects("lbdd", "lbdd/fields", bad)


def test_lbdd_tree_rejects_a_duplicate_copy() -> None:
    run = lbdd_run()
    rejects("lbdd", "lbdd/tree", edited(run, big_tree(run), lambda o: [o, o]))


def test_lbdd_tree_rejects_a_copy_back_to_the_root() -> None:
    run = lbdd_run()
    back = lambda o: [o, replace(o, node=o.to, to=o.fields["origin"])]  # noqa: E731
    rejects("lbdd", "lbdd/tree", edited(run, big_tree(run), back))


def hand_tree(edges: Sequence[tuple[str, str]], origin: str, members: Sequence[str]) -> ObservedRun:
    base = run_of("reference-lbdd", "uniform")
    log = [
        send("EventDelivery", a, b, event="e1", origin=origin, members=sorted(members))
        for a, b in edges
    ]
    return replace(with_log(base, log), deliveries=())


NODES = [f"n{i}" for i in range(1, 16)]


def bfs_edges(origin: str, members: Sequence[str]) -> list[tuple[str, str]]:
    """The edges of build_tree(origin, members), each parent's before its children's."""
    tree = build_tree(origin, list(members))
    out, frontier = [], [origin]
    while frontier:
        out += [(a, b) for a in frontier for b in tree[a]]
        frontier = [b for a in frontier for b in tree[a]]
    return out


def test_lbdd_depth_rejects_a_chain() -> None:
    chain = list(zip(["n0", *NODES[:-1]], NODES, strict=True))
    buckets = len({bucket_no("n0", m) for m in NODES})
    assert len(NODES) > buckets  # a chain through every member is deeper than the bound
    rejects("lbdd", "lbdd/depth", hand_tree(chain, "n0", NODES))


def test_lbdd_tree_edge_rejects_a_star_and_accepts_build_tree() -> None:
    good = bfs_edges("n0", NODES)
    assert first_deviation(RULES["lbdd"], hand_tree(good, "n0", NODES)) is None
    star = [("n0", m) for m in NODES]
    rejects("lbdd", "lbdd/tree-edge", hand_tree(star, "n0", NODES))


def test_lbdd_tree_edge_rejects_a_wrong_bucket() -> None:
    tree = build_tree("n0", NODES)
    good = bfs_edges("n0", NODES)
    leaf = next(b for a, b in good if a != "n0" and not tree[b])
    other = next(m for m in NODES if m != leaf and bucket_no("n0", m) != bucket_no("n0", leaf))
    # the parent of `leaf` is replaced by a node of another bucket that has received already
    order = [e for e in good if e[1] != leaf]
    wrong = [*order, (other, leaf)]
    rejects("lbdd", "lbdd/tree-edge", hand_tree(wrong, "n0", NODES))


def test_lbdd_complete_rejects_a_missing_member() -> None:
    tree = build_tree("n0", NODES)
    good = bfs_edges("n0", NODES)
    leaf = next(b for a, b in good if not tree[b])
    rejects("lbdd", "lbdd/complete", hand_tree([e for e in good if e[1] != leaf], "n0", NODES))


def test_lbdd_delivered_through_tree_rejects_a_delivery_elsewhere() -> None:
    run = lbdd_run()
    reached = {(o.obs.event, o.obs.to) for o in run.log if o.obs.name == "EventDelivery"}
    subscriber = subscribers_of(run.trace)
    event = next(o.obs for o in run.log if o.obs.name == "EventDelivery")
    origins = {str(o.obs.fields.get("origin")) for o in run.log}
    publisher = events_of(run.trace)[str(event.event)].publisher
    sid = next(s for s, n in subscriber.items() if (event.event, n) not in reached
               and n not in origins and n != publisher)  # fmt: skip
    bad = replace(run, deliveries=(*run.deliveries, Delivery(str(event.event), sid)))
    rejects("lbdd", "lbdd/delivered-through-tree", bad)


def thesis_run(builtin: str = "reference", gen: str = "cutoff") -> ObservedRun:
    run = run_of(builtin, gen)
    assert first_deviation(RULES["thesis"], run) is None
    return run


def test_thesis_fields_rejects_a_probe_without_its_tree() -> None:
    run = thesis_run()
    bad = edited(run, is_send("ProbePub"), lambda o: [replace(o, fields={"bits": "0"})])
    rejects("thesis", "thesis/fields", bad)


def test_growth_only_rejects_a_second_split_and_an_uncreated_one() -> None:
    run = thesis_run()
    rejects("thesis", "thesis/growth-only", edited(run, is_state("split"), lambda o: [o, o]))
    orphan = lambda o: [fields(o, bits=o.fields["bits"] + "11", children=None), o]  # noqa: E731
    rejects("thesis", "thesis/growth-only", edited(run, is_state("split"), orphan))


def test_depth_rejects_a_node_past_the_maximum() -> None:
    """Splits down one path, each of a node its parent's split created (growth-only holds): the
    split at depth D = the trace's max_depth makes children at depth D + 1."""
    run = thesis_run()
    bound = config_of(run.trace).max_depth
    tree = run.trace.schemas[0].name + "/" + run.trace.schemas[0].attributes[0].name
    chain = [
        state("split", "n1", tree=tree, bits="0" * d, children=["0" * d + "0", "0" * d + "1"])
        for d in range(bound + 1)
    ]
    ok = with_log(run, chain[:bound])
    assert rule_ids("thesis")["thesis/depth"].check(ok, ok) is None
    rejects("thesis", "thesis/depth", with_log(run, chain))
    assert rule_ids("thesis")["thesis/depth"].check(run, run) is None


def test_leaf_update_after_split_rejects_a_skipped_leaf_update() -> None:
    run = thesis_run()
    split = next(o.obs for o in run.log if o.obs.name == "split" and o.obs.fields["bits"])
    s = split.fields["bits"]
    kept = [o for o in run.log if not (is_send("LeafUpdate", split=s, bits=s[:-1])(o.obs))]
    assert len(kept) < len(run.log)
    rejects("thesis", "thesis/leaf-update-after-split", replace(run, log=tuple(kept)))


def test_lnrt_partition_rejects_a_record_missing() -> None:
    run = thesis_run()
    bad = edited(run, is_state("lnrt"), lambda o: [fields(o, records=o.fields["records"][1:])])
    rejects("thesis", "thesis/lnrt-partition", bad)


def flip(bits: str) -> str:
    return ("1" if bits[0] == "0" else "0") + bits[1:]


def test_points_in_zone_rejects_a_point_outside_and_a_point_left_behind() -> None:
    run = thesis_run()
    outside = edited(
        run,
        lambda o: is_state("store")(o) and o.fields["bits"] != "",
        lambda o: [fields(o, bits=flip(o.fields["bits"]))],
    )
    rejects("thesis", "thesis/points-in-zone", outside, first=False)
    kept = [o for o in run.log if not (o.obs.name == "store" and o.obs.fields["via"] == "transfer")]
    rejects("thesis", "thesis/points-in-zone", replace(run, log=tuple(kept)))


def test_leaf_probe_zone_rejects_a_probe_to_a_zone_without_the_point() -> None:
    run = thesis_run()
    bad = edited(
        run,
        lambda o: is_send("ProbeSub")(o) and o.fields["bits"] != "",
        lambda o: [fields(o, bits=flip(o.fields["bits"]))],
    )
    rejects("thesis", "thesis/leaf-probe-zone", bad)


@pytest.mark.parametrize("builtin", ["reference", "reference-multicast"])
def test_probe_overlap_rejects_a_probe_to_a_non_overlapping_zone(builtin: str) -> None:
    run = thesis_run(builtin, "uniform")
    events = events_of(run.trace)
    schemas = {s.name: s for s in run.trace.schemas}

    def away(o: Observation) -> list[Observation]:
        event = events[str(o.event)]
        tree = o.fields["tree"] if o.name == "ProbePub" else o.fields["dests"][0][0]
        attr = schemas[event.schema].by_name[tree.split("/", 1)[1]]
        v = event.value(attr.name)
        assert v is not None
        bits = "1" if v < (attr.min + attr.max) / 2 else "01"  # x above v, or y below v
        if o.name == "ProbePub":
            return [fields(o, bits=bits)]
        return [fields(o, dests=[[tree, bits], *o.fields["dests"][1:]])]

    name = "ProbePub" if builtin == "reference" else "ProbePubMulticast"
    rejects("thesis", "thesis/probe-overlap", edited(run, is_send(name), away))


def test_delivery_root_rejects_a_delivery_without_a_match() -> None:
    run = thesis_run()
    kept = [o for o in run.log if o.obs.name != "match"]
    rejects("thesis", "thesis/delivery-root", replace(run, log=tuple(kept)))


def test_delivery_root_rejects_a_central_matcher() -> None:
    """A program that sends each event from its publisher to the subscribers it matched, with
    no 2d-tree, deviates at the protocol level."""
    base = thesis_run()
    subscriber = subscribers_of(base.trace)
    publisher = {e.id: e.publisher for e in events_of(base.trace).values()}
    log = [
        send("EventDelivery", publisher[d.event_id], subscriber[d.sub_id], event=d.event_id,
             strategy="unicast", origin=publisher[d.event_id],
             targets=[[subscriber[d.sub_id], [d.sub_id]]])
        for d in base.deliveries
    ]  # fmt: skip
    rejects("thesis", "thesis/delivery-root", with_log(base, log))


@pytest.mark.parametrize("builtin", ["reference", "reference-multicast"])
def test_delivery_tree_rejects_a_duplicate_forward(builtin: str) -> None:
    run = thesis_run(builtin, "uniform")
    pick = lambda o: is_send("EventDelivery")(o) and o.node != o.to  # noqa: E731
    rejects("thesis", "thesis/delivery-tree", edited(run, pick, lambda o: [o, o]))


@pytest.mark.parametrize("builtin", ["reference", "reference-multicast"])
def test_delivery_tree_rejects_a_target_never_reached(builtin: str) -> None:
    run = thesis_run(builtin, "uniform")
    pick = lambda o: is_send("EventDelivery")(o) and o.node != o.to  # noqa: E731
    rejects("thesis", "thesis/delivery-tree", edited(run, pick, lambda o: []))


def test_delivery_tree_rejects_a_copy_beyond_its_target() -> None:
    run = thesis_run("reference", "uniform")
    pick = lambda o: is_send("EventDelivery")(o) and o.node != o.to  # noqa: E731
    others = sorted({o.obs.node for o in run.log} - {"n0"})
    beyond = lambda o: [o, replace(o, node=o.to, to=next(n for n in others if n != o.to))]  # noqa: E731
    rejects("thesis", "thesis/delivery-tree", edited(run, pick, beyond))


def test_thesis_judges_its_lbdd_copies_by_the_lbdd_rules() -> None:
    run = replace(lbdd_run(), system="thesis")
    assert first_deviation(RULES["thesis"], run) is None
    rejects("thesis", "lbdd/tree", edited(run, big_tree(run), lambda o: [o, o]))


def test_single_delivery_rejects_a_second_match_of_a_subscription() -> None:
    run = thesis_run()
    pick = lambda o: is_state("match")(o) and o.node != ""  # noqa: E731
    again = lambda o: [o, replace(o, fields={**o.fields})]  # noqa: E731
    rejects("thesis", "thesis/single-delivery", edited(run, pick, again))


def test_delivered_by_message_rejects_a_delivery_nobody_brought() -> None:
    run = thesis_run()
    brought = set(run.deliveries)
    pairs = [Delivery(e, s) for e in events_of(run.trace) for s in subscribers_of(run.trace)]
    extra = next(d for d in pairs if d not in brought)
    bad = replace(run, deliveries=(*run.deliveries, extra))
    rejects("thesis", "thesis/delivered-by-message", bad)


def test_every_rule_has_a_rejecting_test() -> None:
    """Each rule id of thesis and lbdd appears in a test above (a rule nobody breaks is not
    tested)."""
    import inspect
    import sys

    text = inspect.getsource(sys.modules[__name__])
    for system in ("thesis", "lbdd"):
        for r in RULES[system]:
            assert f'"{r.id}"' in text, r.id


def test_a_state_observation_builds() -> None:
    o = state("split", "n1", tree="s/a", bits="", children=["0", "1"])
    want = {"tree": "s/a", "bits": "", "children": ["0", "1"]}
    assert o.to_json() == {"kind": "state", "name": "split", "node": "n1", "fields": want}


# -- decision D-OBS-LBDD (docs/lbdd.md) ---------------------------------------------------------
def stand_alone_lbdd(t: Trace) -> ObservedRun:
    """What a stand-alone LBDD implementation reports: per event one LBDD tree from its
    publisher to the nodes of its matching subscriptions, nothing else (no 2d-tree)."""
    from pubsub_spec.reference.common.oracle import expected_deliveries

    delivered = expected_deliveries(t)
    subscriber, events = subscribers_of(t), events_of(t)
    log: list[Observed] = []
    for event in events.values():
        nodes = {subscriber[d.sub_id] for d in delivered if d.event_id == event.id}
        members = sorted(nodes - {event.publisher})
        seq = next(op.seq for op in t.ops if isinstance(op, Publish) and op.event.id == event.id)
        for a, b in bfs_edges(event.publisher, members):
            o = send("EventDelivery", a, b, event=event.id, origin=event.publisher,
                     members=members)  # fmt: skip
            log.append(Observed(seq, o))
    return ObservedRun("lbdd", t, tuple(log), tuple(delivered))


@pytest.mark.parametrize("gen", ["uniform", "boundaries", "zipf"])
def test_d_obs_lbdd_a_stand_alone_lbdd_conforms_to_lbdd_not_to_thesis(gen: str) -> None:
    """D-OBS-LBDD: `lbdd` judges only the delivery trees, so an LBDD implementation without a
    2d-tree conforms to it (generic rules included, the cost envelope against reference-lbdd's
    EventDelivery copies); claiming `thesis`, the same log is not the thesis' protocol."""
    t = trace(gen, 0, "small")
    run = stand_alone_lbdd(t)
    assert any(len(o.obs.fields["members"]) >= 3 for o in run.log)
    verdict = judge_protocol(run, observed_run("reference-lbdd", t))
    assert verdict.status == "conforms", verdict.describe()
    as_thesis = judge_protocol(replace(run, system="thesis"), observed_run("reference", t))
    assert as_thesis.status == "deviates", as_thesis.describe()
