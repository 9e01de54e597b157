"""Protocol observations of `tam` and `tam-basic` (conformance/OBSERVATIONS.md, "tam, tam-basic";
conformance/protocol_rules/tam.py): reporting them changes no run (same deliveries, same
event-log hash), every built-in of the family conforms to its rules on the default conform
generators' small traces, and each rule rejects, naming itself, a log mutated to break it
(Tam, Azimi, Jacobsen, DBISP2P 2003; Scribe, Castro et al.)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import pytest

from pubsub_spec.conformance.faults import default_traces
from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.observed import judge_protocol, observed_run, reference_run
from pubsub_spec.conformance.protocol_rules import STATES
from pubsub_spec.conformance.protocol_rules import tam as rules
from pubsub_spec.conformance.protocol_rules.base import Observed, ObservedRun, Rule
from pubsub_spec.reference.common.ops import Trace, initial_node_names
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.overlay import scribe
from pubsub_spec.reference.sim.observe import SEND, STATE, Observation
from pubsub_spec.reference.sim.run import run_trace
from pubsub_spec.reference.sim.system import System, missing_features
from pubsub_spec.reference.tam import system as tam_system
from pubsub_spec.reference.tam.info import TAM, TAM_BASIC

BUILTINS = {"tam": TAM, "tam-fewest-keys": TAM, "tam-all": TAM, "tam-basic": TAM_BASIC}
MAKE = {v.builtin: v.make for info in (TAM, TAM_BASIC) for v in info.variants}


def _covered(builtin: str, traces: Sequence[Trace]) -> list[Trace]:
    return [t for t in traces if missing_features(t, BUILTINS[builtin].features) is None]


@pytest.mark.parametrize("builtin", sorted(BUILTINS))
def test_reporting_changes_no_run(builtin: str) -> None:
    """Observing is free of side effects: same deliveries and event-log hash, on plain and
    churn traces (Scribe repair and the basic scheme's key handover report too)."""
    traces = [GENERATORS[g](1, 0, "small") for g in ("uniform", "churn", "identical")]
    for t in _covered(builtin, traces):
        log: list[Observation] = []

        def observed(trace: Trace, log: list[Observation] = log) -> System[Any]:
            system = MAKE[builtin](trace)
            system.observer = log.append
            return system

        plain = run_trace(t, MAKE[builtin])
        seen = run_trace(t, observed)
        assert seen.event_log_hash == plain.event_log_hash
        assert seen.deliveries == plain.deliveries
        assert seen.metrics.sends == plain.metrics.sends
        # every counted hop is reported once, as a send of its type
        sends = [o.name for o in log if o.kind == SEND]
        assert len(sends) == sum(plain.metrics.sends.values())
        assert {o.name for o in log if o.kind == STATE} <= STATES[
            rules.TAM if builtin != "tam-basic" else rules.TAM_BASIC
        ]


def test_declared_names_are_the_references() -> None:
    """The rules' vocabulary is the one the systems report and declare."""
    assert set(scribe.STATE_CHANGES) | {tam_system.REGISTER, tam_system.UNREGISTER} == set(
        rules.STATES[rules.TAM]
    )
    assert set(tam_system.TAM_STATE_CHANGES) == set(rules.STATES[rules.TAM_BASIC])
    assert {m.name for m in TAM.message_types} == rules.SENDS[rules.TAM]
    assert {m.name for m in TAM_BASIC.message_types} == rules.SENDS[rules.TAM_BASIC]


@cache
def _default() -> list[Trace]:
    return default_traces(seed=1, count=1, profile="small")


@pytest.mark.parametrize("builtin", sorted(BUILTINS))
def test_builtins_conform_to_the_family_rules(builtin: str) -> None:
    traces = _covered(builtin, _default())
    assert len(traces) >= 10
    for t in traces:
        run = observed_run(builtin, t)
        assert run.log, t.trace_id
        for rule in rules.RULES[run.system]:
            d = rule.check(run, run)
            assert d is None, f"{builtin} on {t.trace_id}: {d.summary()}"


@pytest.mark.parametrize("builtin", ["tam", "tam-fewest-keys", "tam-basic"])
def test_builtins_conform_with_the_generic_rules(builtin: str) -> None:
    """The whole protocol level (generic rules with the cost envelope against the claimed
    system's reference run, then the family's). `tam-all` is left out: it registers on every
    applicable index (Tam et al. §3.6), more than 4x the JOINs of `tam` on traces with many
    singleton indices (OBSERVATIONS.md, "tam, tam-basic")."""
    for t in _covered(builtin, _default())[:8]:
        run = observed_run(builtin, t)
        verdict = judge_protocol(run, reference_run(run.system, t))
        assert verdict.status == "conforms", f"{t.trace_id}: {verdict.deviation}"


# -- each rule rejects a log mutated to break it ----------------------------------------------


@cache
def _run(builtin: str) -> ObservedRun:
    # medium: 60 peers, more than a leaf set, so that JOINs take several hops and forwarders
    # absorb some (on 16 peers every route is one hop to the root)
    return observed_run(builtin, GENERATORS["uniform"](1, 0, "medium"))


Mutation = Callable[[ObservedRun], ObservedRun]


def _with(
    run: ObservedRun, log: list[Observed], deliveries: Sequence[Delivery] | None = None
) -> ObservedRun:
    return ObservedRun(
        run.system, run.trace, log, run.deliveries if deliveries is None else deliveries
    )


def _first(
    run: ObservedRun, name: str, pred: Callable[[Observation], bool] = lambda o: True
) -> int:
    return next(i for i, o in enumerate(run.log) if o.obs.name == name and pred(o.obs))


def _replace(run: ObservedRun, i: int, **changes: object) -> ObservedRun:
    log = list(run.log)
    log[i] = Observed(log[i].seq, dataclasses.replace(log[i].obs, **changes))  # type: ignore[arg-type]
    return _with(run, log)


def _fields(run: ObservedRun, i: int, **changes: object) -> ObservedRun:
    return _replace(run, i, fields={**run.log[i].obs.fields, **changes})


def _other_node(run: ObservedRun, *not_these: str | None) -> str:
    return next(n for n in initial_node_names(run.trace.initial_nodes) if n not in not_these)


def _duplicate(run: ObservedRun, i: int) -> ObservedRun:
    log = list(run.log)
    log.insert(i + 1, log[i])
    return _with(run, log)


def _drop(run: ObservedRun, i: int) -> ObservedRun:
    log = list(run.log)
    del log[i]
    return _with(run, log)


def _twice_delivered(run: ObservedRun) -> ObservedRun:
    return _with(run, list(run.log), [*run.deliveries, run.deliveries[0]])


def _join_not_stopping(run: ObservedRun) -> ObservedRun:
    """A forwarder already in the tree that adds the JOIN's sender as a child and forwards the
    JOIN on to its own parent (a join that does not stop at the first tree node)."""
    parent: dict[tuple[object, str], str] = {}
    for i, o in enumerate(run.log):
        obs = o.obs
        here = (obs.fields.get("key"), obs.node)
        if obs.name == rules.PARENT:
            parent[here] = str(obs.fields["parent"])
        elif obs.name == rules.ROOT:
            parent.pop(here, None)
        elif (
            obs.name == rules.CHILD_ADDED
            and here in parent
            and run.log[i - 1].obs.name != (rules.PARENT)
        ):
            log = list(run.log)
            join = Observation(
                SEND,
                rules.JOIN,
                obs.node,
                parent[here],
                fields={"key": obs.fields["key"], "origin": obs.fields["child"], "repair": False},
            )
            log.insert(i + 1, Observed(o.seq, join))
            return _with(run, log)
    raise AssertionError("no JOIN absorbed by a forwarder in the run")


def _leaf_multicast(run: ObservedRun) -> int:
    """A ScribeMulticast whose receiver forwards nothing."""
    senders = {
        (o.obs.event, o.obs.fields.get("key"), o.obs.node)
        for o in run.log
        if o.obs.name == rules.MULTICAST
    }
    return _first(
        run, rules.MULTICAST, lambda o: (o.event, o.fields.get("key"), o.to) not in senders
    )


def _stranger(run: ObservedRun, i: int) -> ObservedRun:
    obs = run.log[i].obs
    return _replace(run, i, node=_other_node(run, obs.node, obs.to))


TAM_MUTATIONS: dict[str, Mutation] = {
    rules.R_FIELDS: lambda r: _replace(r, _first(r, rules.MULTICAST), fields={}),
    rules.R_REGISTER: lambda r: _fields(r, _first(r, rules.REGISTER), key="0" * 40),
    rules.R_EVENT_KEYS: lambda r: _fields(r, _first(r, rules.PUBLISH), key="f" * 40),
    rules.R_ROOT: lambda r: _stranger(r, _first(r, rules.ROOT)),
    rules.R_JOIN_STOPS: _join_not_stopping,
    rules.R_JOIN_ABSORBED: lambda r: _drop(r, _first(r, rules.CHILD_ADDED)),
    rules.R_PUBLISH_ROUTE: lambda r: _stranger(r, _first(r, rules.PUBLISH)),
    rules.R_TREE: lambda r: _duplicate(r, _first(r, rules.MULTICAST)),
    rules.R_EDGE: lambda r: _drop(r, _leaf_multicast(r)),
    rules.R_DELIVERED: _twice_delivered,
}
BASIC_MUTATIONS: dict[str, Mutation] = {
    rules.B_FIELDS: lambda r: _fields(r, _first(r, rules.T_NOTIFY), subs=[]),
    rules.B_REGISTER: lambda r: _fields(r, _first(r, rules.REGISTER), index=["no-such-attr"]),
    rules.B_SUBSCRIBE_ROUTE: lambda r: _stranger(r, _first(r, rules.T_SUBSCRIBE)),
    rules.B_STORED: lambda r: _stranger(r, _first(r, rules.STORE)),
    rules.B_PUBLISH_ROUTE: lambda r: _stranger(r, _first(r, rules.T_PUBLISH)),
    rules.B_NOTIFY_HOME: lambda r: _stranger(r, _first(r, rules.T_NOTIFY)),
    rules.B_NOTIFY_MATCH: lambda r: _duplicate(r, _first(r, rules.T_NOTIFY)),
    rules.B_DELIVERED: _twice_delivered,
}


def _rule(system: str, rid: str) -> Rule:
    return next(r for r in rules.RULES[system] if r.id == rid)


def test_every_rule_has_a_mutation() -> None:
    assert set(TAM_MUTATIONS) == {r.id for r in rules.RULES[rules.TAM]}
    assert set(BASIC_MUTATIONS) == {r.id for r in rules.RULES[rules.TAM_BASIC]}


@pytest.mark.parametrize(
    ("builtin", "rid"),
    [("tam", rid) for rid in TAM_MUTATIONS] + [("tam-basic", rid) for rid in BASIC_MUTATIONS],
)
def test_each_rule_rejects_its_mutant(builtin: str, rid: str) -> None:
    run = _run(builtin)
    mutate = (TAM_MUTATIONS if builtin == "tam" else BASIC_MUTATIONS)[rid]
    rule = _rule(run.system, rid)
    assert rule.check(run, run) is None  # the unmutated log conforms to it
    bad = mutate(run)
    d = rule.check(bad, run)
    assert d is not None and d.rule == rid, f"{rid} accepted its mutant"
    assert d.source.startswith(("Tam, Azimi, Jacobsen", "Scribe"))
    if d.index is not None:
        assert 0 <= d.index < len(bad.log)


def test_reported_lines_follow_the_json_schema() -> None:
    """Every line the built-ins report validates against conformance/observations/
    tam.schema.json (churn included: repairs, handovers, transfers); a key that is not 40 hex
    digits, or a state with a receiver, does not."""
    import json
    from importlib import resources

    import jsonschema

    text = (resources.files("pubsub_spec") / "conformance/observations/tam.schema.json").read_text()
    validator = jsonschema.Draft202012Validator(json.loads(text))
    names: set[str] = set()
    for builtin in ("tam", "tam-basic"):
        run = observed_run(builtin, GENERATORS["churn"](1, 0, "small"))
        for o in run.log:
            line = {"type": "obs", "seq": o.seq, **o.obs.to_json()}
            errors = list(validator.iter_errors(line))
            assert not errors, (line, errors[0].message)
            names.add(o.obs.name)
    assert {"ScribeJoin", "ScribeMulticast", "TamNotify", "tam-store", "scribe-left"} <= names
    good = {"type": "obs", "seq": 3, "kind": "send", "name": "ScribePublish", "node": "n1",
            "to": "n2", "event": "e1", "fields": {"key": "ab" * 20}}  # fmt: skip
    assert validator.is_valid(good)
    assert not validator.is_valid({**good, "fields": {"key": "AB" * 20}})
    assert not validator.is_valid({**good, "kind": "state", "name": "scribe-root"})
