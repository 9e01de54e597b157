"""The protocol level (conformance/observed.py, conformance/protocol_rules/generic.py): built-in
runs with observations, the claim map, the generic rules on hand-made logs (each rejects a bad
log naming its rule, passes a good one), `per_event_tree`, and the verdict of an outside
version-2 program over the wire, shrunk."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from pubsub_spec.conformance import observed as ob
from pubsub_spec.conformance import protocol_rules
from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.protocol_rules import CLAIMABLE, generic
from pubsub_spec.conformance.protocol_rules.base import Observed, ObservedRun, Rule
from pubsub_spec.reference.common.ops import Publish, Subscribe, Trace
from pubsub_spec.reference.registry import SYSTEMS
from pubsub_spec.reference.sim.observe import send, state
from pubsub_spec.reference.sim.run import run_trace
from pubsub_spec.reference.sim.system import missing_features

TRACE = GENERATORS["uniform"](1, 0, "tiny")
PUB = [op for op in TRACE.ops if isinstance(op, Publish)]
SUB = [op for op in TRACE.ops if isinstance(op, Subscribe)]


def run_of(log: list[Observed], system: str = "thesis", trace: Trace = TRACE) -> ObservedRun:
    return ObservedRun(system, trace, tuple(log), ())


def per_publish(name: str, count: int, hops: int = 1) -> list[Observed]:
    """`count` sends of `name` under every publish of TRACE."""
    return [
        Observed(p.seq, send(name, "n0", f"n{1 + i % 5}", event=p.event.id, hops=hops))
        for p in PUB
        for i in range(count)
    ]


def per_subscribe(name: str, count: int) -> list[Observed]:
    return [
        Observed(s.seq, send(name, "n0", f"n{1 + i % 5}", sub=s.sub.id))
        for s in SUB
        for i in range(count)
    ]


def test_claim_map() -> None:
    assert ob.claim_of("reference") == "thesis" == ob.claim_of("reference-multicast")
    assert ob.claim_of("reference-lbdd") == "lbdd"
    assert ob.claim_of("tam-all") == "tam" == ob.claim_of("tam-fewest-keys")
    assert ob.claim_of("oracle-python") is None and ob.claim_of("reference-fast") is None
    assert set(ob.REFERENCE) == set(CLAIMABLE)
    for system, builtin in ob.REFERENCE.items():
        assert ob.claim_of(builtin) == system


def test_observed_run_numbers_by_op_and_changes_nothing() -> None:
    run = ob.observed_run("reference", TRACE)
    plain = run_trace(TRACE, SYSTEMS["thesis"].variant("reference").make, check=False)
    assert list(run.deliveries) == plain.deliveries
    seqs = {op.seq for op in TRACE.ops} | {0}
    assert run.log and all(o.seq in seqs for o in run.log)
    assert [o.seq for o in run.log] == sorted(o.seq for o in run.log)  # in op order
    assert ob.observed_run("reference", TRACE) == run  # deterministic
    with pytest.raises(ValueError, match="claims no system"):
        ob.observed_run("oracle-python", TRACE)


GOOD = per_publish("ProbePub", 3, hops=2) + per_subscribe("ProbeSub", 2)


def test_declared_types() -> None:
    assert generic.DECLARED_TYPES.check(run_of(GOOD), run_of(GOOD)) is None
    bad = [*GOOD[:3], Observed(PUB[0].seq, send("Flood", "n0", "n1", event="e")), *GOOD[3:]]
    d = generic.DECLARED_TYPES.check(run_of(bad), run_of(GOOD))
    assert d is not None and d.rule == "generic/declared-types" and d.index == 3
    assert "'Flood'" in d.detail
    # lbdd is judged in the thesis system's vocabulary (decision D-OBS-LBDD)
    assert generic.DECLARED_TYPES.check(run_of(GOOD, "lbdd"), run_of(GOOD)) is None


def test_declared_states(monkeypatch: pytest.MonkeyPatch) -> None:
    log = [*GOOD, Observed(1, state("merge", "n0"))]
    monkeypatch.delitem(protocol_rules.STATES, "thesis", raising=False)
    assert generic.DECLARED_TYPES.check(run_of(log), run_of(GOOD)) is None  # none declared
    monkeypatch.setitem(protocol_rules.STATES, "thesis", frozenset({"split"}))
    d = generic.DECLARED_TYPES.check(run_of(log), run_of(GOOD))
    assert d is not None and d.index == len(GOOD) and "'merge'" in d.detail
    ok = [*GOOD, Observed(1, state("split", "n0"))]
    assert generic.DECLARED_TYPES.check(run_of(ok), run_of(GOOD)) is None


def test_reported() -> None:
    d = generic.REPORTED.check(run_of([]), run_of(GOOD))
    assert d is not None and d.rule == "generic/reported" and d.index is None
    assert generic.REPORTED.check(run_of(GOOD), run_of(GOOD)) is None
    no_publish = replace(TRACE, ops=tuple(op for op in TRACE.ops if not isinstance(op, Publish)))
    assert generic.REPORTED.check(run_of([], trace=no_publish), run_of(GOOD)) is None


def test_cost_envelope_two_sided() -> None:
    ref = run_of(GOOD)
    assert generic.COST_ENVELOPE.check(ref, ref) is None
    within = per_publish("ProbePub", 12, hops=2) + per_subscribe("ProbeSub", 2)
    assert generic.COST_ENVELOPE.check(run_of(within), ref) is None  # 4x messages: in
    flood = per_publish("ProbePub", 15, hops=2) + per_subscribe("ProbeSub", 2)
    d = generic.COST_ENVELOPE.check(run_of(flood), ref)
    assert d is not None and d.rule == "generic/cost-envelope"
    assert "messages per publish 15.00 is above" in d.detail
    central = per_publish("EventDelivery", 1) + per_subscribe("ProbeSub", 2)
    d = generic.COST_ENVELOPE.check(run_of(central), ref)
    assert d is not None and "is below" in d.detail  # 1 message, 1 hop < 6 / 4
    hops = per_publish("ProbePub", 3, hops=40) + per_subscribe("ProbeSub", 2)
    d = generic.COST_ENVELOPE.check(run_of(hops), ref)
    assert d is not None and "hops per publish 120.00 is above" in d.detail
    subs = GOOD + per_subscribe("ProbeSub", 20)
    d = generic.COST_ENVELOPE.check(run_of(subs), ref)
    assert d is not None and "messages per subscribe" in d.detail


def test_cost_charges_declared_types(monkeypatch: pytest.MonkeyPatch) -> None:
    # a send carrying an event is a publish's cost unless the family says which types are
    monkeypatch.delitem(protocol_rules.DISSEMINATION, "thesis", raising=False)
    monkeypatch.delitem(protocol_rules.SUBSCRIPTION, "thesis", raising=False)
    log = per_publish("LeafUpdate", 3)
    assert generic.cost(run_of(log)).publish_messages == 3 * len(PUB)
    monkeypatch.setitem(protocol_rules.DISSEMINATION, "thesis", frozenset({"ProbePub"}))
    assert generic.cost(run_of(log)).publish_messages == 0
    # neither event nor subscription: the op it was reported under
    plain = [Observed(PUB[0].seq, send("LeafUpdate", "n0", "n1"))]
    monkeypatch.delitem(protocol_rules.DISSEMINATION, "thesis")
    monkeypatch.delitem(protocol_rules.SUBSCRIPTION, "thesis", raising=False)
    assert generic.cost(run_of(plain)).publish_messages == 1


def tree(*edges: tuple[str, str], event: str = "e1") -> ObservedRun:
    return run_of([Observed(1, send("EventDelivery", a, b, event=event)) for a, b in edges])


def test_per_event_tree() -> None:
    types = {"EventDelivery"}
    assert generic.per_event_tree(tree(("n0", "n1"), ("n0", "n2"), ("n1", "n3")), types) is None
    twice = generic.per_event_tree(tree(("n0", "n1"), ("n0", "n2"), ("n2", "n1")), types)
    assert twice == generic.TreeBreak(2, "e1", "n1", "twice")
    cycle = generic.per_event_tree(tree(("n0", "n1"), ("n1", "n2"), ("n2", "n0")), types)
    assert cycle == generic.TreeBreak(2, "e1", "n0", "cycle")
    assert generic.per_event_tree(tree(("n0", "n0")), types) == generic.TreeBreak(
        0, "e1", "n0", "cycle"
    )
    assert generic.per_event_tree(tree(("n0", "n1"), ("n2", "n1")), {"ProbePub"}) is None
    two_events = run_of([*tree(("n0", "n1")).log, *tree(("n0", "n1"), event="e2").log])
    assert generic.per_event_tree(two_events, types) is None


def test_judge_protocol_levels(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(protocol_rules.FAMILY_RULES, "thesis", ())  # the generic rules only
    assert ob.judge_protocol(None, None).label() == "not reported"
    v = ob.judge_protocol(run_of(GOOD), run_of(GOOD))
    assert v.label() == "conforms" and v.system == "thesis"
    bad = [Observed(PUB[0].seq, send("Flood", "n0", "n1", event="e")), *GOOD]
    v = ob.judge_protocol(run_of(bad), run_of(GOOD))
    assert v.label() == "deviates (generic/declared-types)"
    assert v.observation is not None and v.observation["name"] == "Flood"
    assert v.to_json()["deviation"]["index"] == 0
    v = ob.judge_protocol(run_of(GOOD), run_of(GOOD), too_many=True)
    assert v.label() == "deviates (limits/too-many-observations)"


def test_a_rule_that_cannot_read_a_field_is_a_deviation(monkeypatch: pytest.MonkeyPatch) -> None:
    def reads(run: ObservedRun, reference: ObservedRun) -> None:
        run.log[0].obs.fields["bucket"]

    rule = Rule("thesis/reads-bucket", "test", "reads a field", reads)
    monkeypatch.setitem(protocol_rules.FAMILY_RULES, "thesis", (rule,))
    v = ob.judge_protocol(run_of(GOOD), run_of(GOOD))
    assert v.label() == "deviates (thesis/reads-bucket)" and "bucket" in v.describe()


SMALL = [g for g in GENERATORS if g != "churn"]


@pytest.mark.parametrize("builtin", sorted({b for b in ob.REFERENCE.values()}))
def test_builtins_pass_the_generic_rules(builtin: str) -> None:
    """Every reference built-in against itself and every other variant claiming the same
    system against the reference, on the default generators' tiny traces it supports."""
    claim = ob.claim_of(builtin)
    assert claim is not None
    system = "thesis" if claim == "lbdd" else claim
    info = SYSTEMS[system]
    same = [v.builtin for v in info.variants if ob.claim_of(v.builtin) == claim]
    for gen in SMALL:
        trace = GENERATORS[gen](1, 0, "tiny")
        if missing_features(trace, info.features):
            continue
        ref = ob.observed_run(builtin, trace)
        for other in same:
            run = ref if other == builtin else ob.observed_run(other, trace)
            for rule in generic.RULES:
                d = rule.check(run, ref)
                assert d is None, f"{other} on {gen}: {d.summary()}"


BROADCAST = r'''
import json, sys
subs, nodes = {}, []
def out(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "init":
        nodes = list(m["nodes"])
        out({"type": "init_ok", "features": ["strict", "lenient", "churn", "multi-schema"],
             "protocol": 2, "system": "thesis"}); continue
    if m["type"] == "end":
        out({"type": "end_ok"}); break
    op = m["op"]
    if op == "join": nodes.append(m["node"])
    elif op == "subscribe": subs[m["id"]] = m
    elif op == "unsubscribe": subs.pop(m["id"], None)
    elif op in ("leave", "fail"):
        gone = {m.get("node")} | set(m.get("nodes", []))
        nodes = [n for n in nodes if n not in gone]
        subs = {k: v for k, v in subs.items() if v["subscriber"] not in gone}
    elif op == "publish":
        for n in nodes:
            if n != m["publisher"]:
                out({"type": "obs", "seq": m["seq"], "kind": "send", "name": "ProbePub",
                     "node": m["publisher"], "to": n, "event": m["id"]})
        strict = True
        for sid, s in sorted(subs.items()):
            vals = m["values"]
            if s["schema"] == m["schema"] and all(
                a in vals and lo <= vals[a] <= hi for a, (lo, hi) in s["predicates"].items()):
                out({"type": "deliver", "event": m["id"], "sub": sid})
    out({"type": "ack", "seq": m["seq"]})
'''


def test_outside_broadcast_deviates_and_shrinks(tmp_path: Path) -> None:
    path = tmp_path / "broadcast.py"
    path.write_text(BROADCAST)
    impl = f"cmd:{sys.executable} {path}"
    trace = GENERATORS["uniform"](1, 0, "small")
    v = ob.protocol_verdict(impl, trace, shrink_budget=12)
    assert v.label() == "deviates (generic/cost-envelope)", v.describe()
    assert v.shrunk is not None and len(v.shrunk.ops) < len(trace.ops)
    again = ob.protocol_verdict(impl, v.shrunk)
    assert again.rule == "generic/cost-envelope"


def test_version_1_program_not_reported() -> None:
    faulty = Path(__file__).resolve().parent.parent / "conformance" / "examples" / "faulty.py"
    v = ob.protocol_verdict(f"cmd:{sys.executable} {faulty} --mode none", TRACE)
    assert v.label() == "not reported" and "version-1" in v.reason
    assert ob.protocol_verdict("oracle-python", TRACE).label() == "not reported"


def test_the_cost_envelope_admits_the_papers_other_options() -> None:
    """`tam-all` registers on every applicable index (Tam et al. §3.6, the paper's other option)
    and sends several times `tam`'s JOINs per subscription on a schema with many singleton
    indices: outside the envelope around `tam`, inside the one around its own option
    (`ob.ALTERNATIVES`); a run outside every option's envelope still deviates."""
    t = GENERATORS["octopia-stock"](1, 1, "small")
    run = ob.observed_run("tam-all", t)
    assert ob.judge_protocol(run, ob.reference_run("tam", t)).rule == "generic/cost-envelope"
    assert ob.judge_run(run).label() == "conforms"
    assert ob.ALTERNATIVES["tam"] == ("tam-fewest-keys", "tam-all")
    silent = ObservedRun(run.system, t, (), run.deliveries)
    assert ob.judge_run(silent).status == ob.DEVIATES


def test_a_reference_known_by_its_cost_judges_like_the_run() -> None:
    """The cost envelope is all a rule reads of a reference, so a variant judged against the
    reference's `summary` (conform --ops shares one reference run per trace among a claim's
    variants) gets the verdict it gets against the whole run: `tam-all` leaves `tam`'s
    envelope on this trace in both, a cost ten times the reference's is caught, and a summary
    of the run's own cost admits it."""
    t = GENERATORS["octopia-stock"](1, 1, "small")
    run = ob.observed_run("tam-all", t)
    full = ob.reference_run("tam", t)
    short = ob.summary("tam", t, generic.cost(full))
    assert generic.cost(short) == generic.cost(full) and not short.log
    assert ob.judge_protocol(run, short).rule == ob.judge_protocol(run, full).rule
    assert ob.judge_protocol(run, short).rule == "generic/cost-envelope"
    assert ob.judge_run(run, reference=short).label() == ob.judge_run(run).label() == "conforms"
    mine = generic.cost(run)
    assert ob.judge_protocol(run, ob.summary("tam", t, mine)).label() == "conforms"
    tenth = replace(mine, publish_messages=max(1, mine.publish_messages // 10))
    cheap = ob.summary("tam", t, replace(tenth, subscribe_messages=mine.subscribe_messages // 10))
    assert ob.judge_protocol(run, cheap).rule == "generic/cost-envelope"


def test_the_collector_threshold_is_restored() -> None:
    import gc

    before = gc.get_threshold()
    with ob.few_collections():
        assert gc.get_threshold()[0] == max(before[0], ob.GC_THRESHOLD)
    assert gc.get_threshold() == before
    ob.observed_run("kyra", TRACE)
    assert gc.get_threshold() == before
