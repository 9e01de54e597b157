"""Protocol observations of octopia-snr, octopia-idr and tid (conformance/OBSERVATIONS.md,
"octopia-snr, octopia-idr, tid") and their rules (conformance/protocol_rules/octopia.py):
observing changes nothing, the built-ins conform, each rule rejects a log broken for it, and
the known mutants (properties/octopia/mutants.py) are caught by the rule of their fault."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import pytest

from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.observed import judge_protocol, observed_run
from pubsub_spec.conformance.protocol_rules.base import Observed, ObservedRun, Rule
from pubsub_spec.conformance.protocol_rules.octopia import (
    RULES,
    STATES,
    depth_bound,
    parse_broker,
)
from pubsub_spec.properties.octopia import mutants as M
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.octopia.config import OctopiaConfig, config_of, with_config
from pubsub_spec.reference.octopia.scot import Scot, broker_name
from pubsub_spec.reference.registry import system, variants
from pubsub_spec.reference.sim.observe import Observation
from pubsub_spec.reference.sim.run import Driver, run_trace
from pubsub_spec.reference.sim.system import System

SYSTEMS = ("octopia-snr", "octopia-idr", "tid")
Make = Callable[[Trace], System]  # type: ignore[type-arg]


def _make(name: str) -> Make:
    return variants()[name][1].make


def observed(name: str, trace: Trace, make: Make | None = None) -> ObservedRun:
    """The system's run with an observer: each observation with the seq of the op applied."""
    log: list[Observed] = []
    seq = [0]
    s = (make or _make(name))(trace)
    s.observer = lambda o: log.append(Observed(seq[0], o))
    driver = Driver(trace, s)
    for op in trace.ops:
        seq[0] = op.seq
        driver.apply(op)
    return ObservedRun(name, trace, log, driver.finish().deliveries)


def overloaded(trace: Trace, p: float = 0.5) -> Trace:
    """IDR with Eq. 10 replaced by a seeded choice of overloaded links (`forced_overload`),
    so that cases (i), (ii) and (iv) all occur."""
    return with_config(trace, "octopia-idr", OctopiaConfig(forced_overload=p))


@cache
def trace(gen: str, index: int = 0) -> Trace:
    return GENERATORS[gen](1, index, "small")


@cache
def run_of(name: str, gen: str, forced: bool = False) -> ObservedRun:
    """The built-in's observed run, as the suite records it (conformance/observed.py)."""
    t = overloaded(trace(gen)) if forced else trace(gen)
    return observed_run(name, t)


@pytest.mark.parametrize("name", SYSTEMS)
def test_the_suites_observed_run_is_the_run_driven_here(name: str) -> None:
    t = overloaded(trace("octopia-stock")) if name == "octopia-idr" else trace("octopia-stock")
    assert tuple(observed_run(name, t).log) == tuple(observed(name, t).log)


def deviation(name: str, run: ObservedRun, rid: str) -> str | None:
    """The detail of rule `rid`'s deviation on `run`, or None."""
    (rule,) = [r for r in RULES[name] if r.id == rid]
    d = rule.check(run, run)
    if d is None:
        return None
    assert d.rule == rid
    assert "OctopiA" in d.source
    return d.detail


def first_deviation(name: str, run: ObservedRun) -> str | None:
    for r in RULES[name]:
        d = r.check(run, run)
        if d is not None:
            return d.summary()
    return None


# -- emission -----------------------------------------------------------------------------
@pytest.mark.parametrize("name", SYSTEMS)
@pytest.mark.parametrize("gen", ["uniform", "octopia-stock", "churn"])
def test_observing_changes_neither_the_event_log_nor_the_deliveries(name: str, gen: str) -> None:
    t = overloaded(trace(gen)) if name == "octopia-idr" else trace(gen)
    plain = run_trace(t, _make(name))
    log: list[Observation] = []

    def make(tr: Trace) -> System:  # type: ignore[type-arg]
        s = _make(name)(tr)
        s.observer = log.append
        return s

    seen = run_trace(t, make)
    assert seen.event_log_hash == plain.event_log_hash
    assert seen.deliveries == plain.deliveries
    assert seen.metrics.sends == plain.metrics.sends
    assert log, "an observed run reports observations"


@pytest.mark.parametrize("name", SYSTEMS)
def test_every_message_sent_is_reported_once_with_its_declared_type(name: str) -> None:
    """octopia-stock declares its advertisements (no implicit ones built before the
    observer is set), so the send observations are exactly the IMs the metrics count."""
    run = run_of(name, "octopia-stock", forced=name == "octopia-idr")
    sent = Counter(ob.obs.name for ob in run.log if ob.obs.kind == "send")
    metrics = run_trace(run.trace, _make(name)).metrics
    assert sent == Counter({k: v for k, v in metrics.sends.items() if v})
    declared = {m.name for m in system(name).message_types}
    assert set(sent) <= declared
    states = {ob.obs.name for ob in run.log if ob.obs.kind == "state"}
    assert states <= STATES[name]
    assert {"attach", "srt-add", "prt-add", "publish", "deliver"} <= states


def test_nodes_are_broker_labels_and_deliveries_match_the_deliver_observations() -> None:
    run = run_of("octopia-snr", "octopia-stock")
    for ob in run.log:
        assert parse_broker(ob.obs.node) is not None, ob
        if ob.obs.to is not None:
            assert parse_broker(ob.obs.to) is not None, ob
    delivered = [(o.obs.event, o.obs.sub) for o in run.log if o.obs.name == "deliver"]
    assert delivered == [(d.event_id, d.sub_id) for d in run.deliveries]


def test_an_observer_set_after_construction_gets_the_implicit_advertisements() -> None:
    """O-IMPLICIT advertisements are issued in __init__: setting the observer reports the
    SRT they built (`initial`), so a TID tree is known before the first op."""
    run = run_of("tid", "uniform")
    initial = [ob for ob in run.log if ob.obs.fields.get("initial")]
    assert initial and all(ob.seq == 0 for ob in initial)
    assert {ob.obs.name for ob in initial} == {"attach", "srt-add"}
    scot = Scot(config_of(run.trace, "tid").factor(), config_of(run.trace, "tid").m)
    roots = [ob for ob in initial if ob.obs.name == "srt-add" and ob.obs.fields["last_hop"] is None]
    adverts = {ob.obs.fields["adv"] for ob in initial if ob.obs.name == "srt-add"}
    assert len(roots) == len(adverts)  # one root per advertisement
    per_adv = Counter(ob.obs.fields["adv"] for ob in initial if ob.obs.name == "srt-add")
    assert set(per_adv.values()) == {len(scot.brokers)}  # flooded to every broker


# -- the built-ins conform ----------------------------------------------------------------
@pytest.mark.parametrize("name", SYSTEMS)
@pytest.mark.parametrize(
    "gen", ["uniform", "octopia-stock", "octopia-burst", "churn", "partial-lenient", "degenerate"]
)
def test_builtin_conforms_on_default_generators(name: str, gen: str) -> None:
    assert first_deviation(name, run_of(name, gen)) is None


def test_builtins_conform_on_the_committed_vectors_with_the_generic_rules() -> None:
    from pathlib import Path

    from pubsub_spec.conformance.traceio import read_trace

    vectors = sorted(Path(__file__).parent.parent.joinpath("conformance/vectors").glob("*.ndjson"))
    traces = [read_trace(p) for p in vectors if not p.name.endswith(".expected.ndjson")]
    assert len(traces) >= 30
    for t in traces:
        for name in SYSTEMS:
            run = observed_run(name, t)
            verdict = judge_protocol(run, run)
            assert verdict.status == "conforms", (t.trace_id, name, verdict.describe())


@pytest.mark.parametrize("gen", ["uniform", "octopia-stock", "churn"])
def test_idr_conforms_under_forced_overload_with_every_case(gen: str) -> None:
    run = run_of("octopia-idr", gen, forced=True)
    assert first_deviation("octopia-idr", run) is None
    cases = {ob.obs.fields["case"] for ob in run.log if ob.obs.name == "idr"}
    assert {"free", "i", "ii", "iv"} <= cases  # the idr-case rule judged every case


def test_depth_bounds() -> None:
    t = trace("uniform")
    c = config_of(t, "octopia-snr")
    scot = Scot(c.factor(), c.m)
    d = scot.factor.diameter()
    assert depth_bound("octopia-snr", scot) == d + 1
    assert depth_bound("octopia-idr", scot) == c.m * d + c.m - 1
    assert depth_bound("tid", scot) is None
    for name in ("octopia-snr", "octopia-idr"):
        run = run_of(name, "uniform", forced=name == "octopia-idr")
        hops = [ob.obs.fields["depth"] for ob in run.log if ob.obs.name == "Notification"]
        bound = depth_bound(name, scot)
        assert bound is not None and hops and max(hops) <= bound


# -- each rule rejects a log broken for it ------------------------------------------------
Log = list[Observed]


def _with(run: ObservedRun, log: Sequence[Observed]) -> ObservedRun:
    return dataclasses.replace(run, log=list(log))


def _edit(ob: Observed, to: str | None = None, fields: dict[str, Any] | None = None) -> Observed:
    """The observation with another receiver and/or some fields changed."""
    new = {**ob.obs.fields, **(fields or {})}
    return Observed(ob.seq, dataclasses.replace(ob.obs, to=to or ob.obs.to, fields=new))


def _first(log: Log, pred: Callable[[Observation], bool]) -> int:
    return next(i for i, ob in enumerate(log) if pred(ob.obs))


def _scot(run: ObservedRun) -> Scot:
    c = config_of(run.trace, run.system)
    return Scot(c.factor(), c.m)


def _not_a_neighbour(run: ObservedRun, node: str) -> str:
    scot = _scot(run)
    b = parse_broker(node)
    assert b is not None
    other = next(x for x in scot.brokers if x != b and x not in scot.neighbours(b))
    return broker_name(other)


def m_links(run: ObservedRun) -> Log:
    log = list(run.log)
    i = _first(log, lambda o: o.kind == "send")
    log[i] = _edit(log[i], to=_not_a_neighbour(run, log[i].obs.node))
    return log


def m_link_kind(run: ObservedRun) -> Log:
    log = list(run.log)
    i = _first(log, lambda o: o.name == "Subscription")
    log[i] = _edit(log[i], fields={"link": "ilink"})
    return log


def m_adv_not_region(run: ObservedRun) -> Log:
    """An Advertisement over an aLink: outside the host's region."""
    log = list(run.log)
    scot = _scot(run)
    i = _first(log, lambda o: o.name == "Advertisement")
    b = parse_broker(log[i].obs.node)
    assert b is not None
    log[i] = _edit(log[i], to=broker_name(scot.primary_neighbours(b)[0]), fields={"link": "alink"})
    return log


def m_drop_cib_set_send(run: ObservedRun) -> Log:
    log = list(run.log)
    del log[_first(log, lambda o: o.name == "CIB_SET")]
    return log


def m_sub_leaves_cluster(run: ObservedRun) -> Log:
    log = list(run.log)
    i = _first(log, lambda o: o.name == "Subscription")
    b = parse_broker(log[i].obs.node)
    assert b is not None
    other = broker_name((b[0], (b[1] + 1) % _scot(run).m))
    log[i] = _edit(log[i], to=other, fields={"link": "ilink"})
    return log


def m_drop_prt_add(run: ObservedRun) -> Log:
    """The last broker storing an active subscription does not store it."""
    active = {ob.obs.sub for ob in run.log if ob.obs.name == "prt-add"} - {
        ob.obs.sub for ob in run.log if ob.obs.name == "prt-remove"
    }
    log = list(run.log)
    i = max(j for j, ob in enumerate(log) if ob.obs.name == "prt-add" and ob.obs.sub in active)
    del log[i]
    return log


def m_publication_civ(run: ObservedRun) -> Log:
    log = list(run.log)
    m = _scot(run).m
    i = _first(log, lambda o: o.name == "publish")
    civ = list(log[i].obs.fields["civ"])
    wrong = sorted(set(range(m)) - set(civ))[:1] if len(civ) < m - 1 else civ[1:]
    log[i] = _edit(log[i], fields={"civ": wrong})
    return log


def m_duplicate_notification(run: ObservedRun) -> Log:
    log = list(run.log)
    i = _first(log, lambda o: o.name == "Notification")
    log.insert(i + 1, log[i])
    return log


def m_stray_notification(run: ObservedRun) -> Log:
    """One more copy, from a broker that has the event to a neighbour that never gets it
    and holds no subscription for it (a tree edge, but not a routing-table one)."""
    scot = _scot(run)
    log = list(run.log)
    i = _first(log, lambda o: o.name == "Notification")
    eid = log[i].obs.event
    has: set[str | None] = {
        ob.obs.node for ob in log if ob.obs.event == eid and ob.obs.name == "Notification"
    }
    has |= {ob.obs.to for ob in log if ob.obs.event == eid and ob.obs.name == "Notification"}
    src = parse_broker(log[i].obs.node)
    assert src is not None
    nb = next(b for b in sorted(scot.neighbours(src)) if broker_name(b) not in has)
    link = "alink" if scot.is_alink(src, nb) else "ilink"
    extra = _edit(log[i], to=broker_name(nb), fields={"link": link, "civ": []})
    log.insert(i + 1, extra)
    return log


def m_hops(run: ObservedRun) -> Log:
    log = list(run.log)
    i = _first(log, lambda o: o.name == "Notification")
    log[i] = _edit(log[i], fields={"depth": 7})
    return log


def m_duplicate_deliver(run: ObservedRun) -> Log:
    log = list(run.log)
    i = _first(log, lambda o: o.name == "deliver")
    log.insert(i + 1, log[i])
    return log


def m_idr_case(run: ObservedRun) -> Log:
    log = list(run.log)
    i = _first(log, lambda o: o.name == "idr" and o.fields["case"] == "i")
    log[i] = _edit(log[i], fields={"case": "free", "overloaded": []})
    return log


def m_civ_under_snr(run: ObservedRun) -> Log:
    log = list(run.log)
    i = _first(log, lambda o: o.name == "Notification" and o.fields["link"] == "alink")
    log[i] = _edit(log[i], fields={"civ": [0]})
    return log


def m_tid_duplicate_flood(run: ObservedRun) -> Log:
    log = list(run.log)
    i = _first(log, lambda o: o.name == "Advertisement")
    log.insert(i + 1, log[i])
    return log


def m_tid_sub_off_path(run: ObservedRun) -> Log:
    scot = _scot(run)
    log = list(run.log)
    i = _first(log, lambda o: o.name == "Subscription")
    b = parse_broker(log[i].obs.node)
    assert b is not None
    other = next(x for x in sorted(scot.neighbours(b)) if broker_name(x) != log[i].obs.to)
    log[i] = _edit(log[i], to=broker_name(other))
    return log


def m_tid_wrong_tid(run: ObservedRun) -> Log:
    log = list(run.log)
    i = _first(log, lambda o: o.name == "Notification")
    tid = log[i].obs.fields["tid"]
    other = next(
        o.obs.fields["adv"] for o in log if o.obs.name == "srt-add" and o.obs.fields["adv"] != tid
    )
    log[i] = _edit(log[i], fields={"tid": other})
    return log


MUTATIONS: list[tuple[str, str, str, Callable[[ObservedRun], Log], bool]] = [
    # (system, generator, rule, mutation, forced overload)
    ("octopia-snr", "octopia-stock", "octopia/links", m_links, False),
    ("octopia-snr", "octopia-stock", "octopia/links", m_link_kind, False),
    ("octopia-snr", "octopia-stock", "octopia/adv-region", m_adv_not_region, False),
    ("octopia-snr", "octopia-stock", "octopia/cib-set", m_drop_cib_set_send, False),
    ("octopia-snr", "octopia-stock", "octopia/sub-in-host-cluster", m_sub_leaves_cluster, False),
    ("octopia-snr", "octopia-stock", "octopia/subgrouping", m_drop_prt_add, False),
    ("octopia-snr", "uniform", "octopia/publication-civ", m_publication_civ, False),
    ("octopia-snr", "octopia-stock", "octopia/notification-tree", m_duplicate_notification, False),
    ("octopia-snr", "octopia-stock", "octopia/notification-route", m_stray_notification, False),
    ("octopia-snr", "octopia-stock", "octopia/notification-route", m_civ_under_snr, False),
    ("octopia-snr", "octopia-stock", "octopia/depth", m_hops, False),
    ("octopia-snr", "octopia-stock", "octopia/notify-once", m_duplicate_deliver, False),
    ("octopia-idr", "uniform", "octopia/idr-case", m_idr_case, True),
    ("octopia-idr", "uniform", "octopia/notification-tree", m_duplicate_notification, True),
    ("octopia-idr", "octopia-stock", "octopia/sub-in-host-cluster", m_sub_leaves_cluster, True),
    ("tid", "octopia-stock", "tid/links", m_links, False),
    ("tid", "octopia-stock", "tid/adv-flood", m_tid_duplicate_flood, False),
    ("tid", "octopia-stock", "tid/sub-reverse-path", m_tid_sub_off_path, False),
    ("tid", "octopia-stock", "tid/notification-tid", m_tid_wrong_tid, False),
    ("tid", "octopia-stock", "tid/notification-tree", m_duplicate_notification, False),
    ("tid", "octopia-stock", "tid/notification-route", m_stray_notification, False),
    ("tid", "octopia-stock", "tid/notify-once", m_duplicate_deliver, False),
]


@pytest.mark.parametrize(
    ("name", "gen", "rid", "mutate", "forced"),
    MUTATIONS,
    ids=[f"{m[2]}:{m[3].__name__}" for m in MUTATIONS],
)
def test_rule_rejects_a_log_broken_for_it(
    name: str, gen: str, rid: str, mutate: Callable[[ObservedRun], Log], forced: bool
) -> None:
    run = run_of(name, gen, forced)
    assert deviation(name, run, rid) is None
    broken = _with(run, mutate(run))
    detail = deviation(name, broken, rid)
    assert detail is not None, f"{rid} misses {mutate.__name__}"


def test_every_rule_has_a_mutation() -> None:
    covered = {m[2] for m in MUTATIONS}
    assert {r.id for rules in RULES.values() for r in rules} == covered


def test_rules_cite_the_paper_and_have_distinct_ids() -> None:
    for name, rules in RULES.items():
        ids = [r.id for r in rules]
        assert len(ids) == len(set(ids)), name
        for r in rules:
            assert isinstance(r, Rule) and "§" in r.source and r.doc
            assert r.id.startswith("tid/" if name == "tid" else "octopia/")


# -- the known mutants, each caught by the rule of its fault ------------------------------
MUTANTS = [
    ("WrongCibBit", "octopia-snr", "octopia-stock", False, "octopia/cib-set"),
    ("NoCibSet", "octopia-snr", "octopia-stock", False, "octopia/cib-set"),
    ("NoAfpPrtCheck", "octopia-snr", "octopia-stock", False, "octopia/cib-set"),
    ("ShortBroadcast", "octopia-snr", "uniform", False, "octopia/subgrouping"),
    ("SnrOnILinks", "octopia-snr", "uniform", False, "octopia/notification-tree"),
    ("CivOnTwoLinks", "octopia-idr", "uniform", True, "octopia/notification-tree"),
    ("LoopingDetour", "octopia-idr", "uniform", True, "octopia/notification-tree"),
]


@pytest.mark.parametrize(
    ("cls", "name", "gen", "forced", "rid"), MUTANTS, ids=[m[0] for m in MUTANTS]
)
def test_mutant_deviates_for_its_rule(
    cls: str, name: str, gen: str, forced: bool, rid: str
) -> None:
    t = overloaded(trace(gen)) if forced else trace(gen)
    routing = name.removeprefix("octopia-")
    run = observed(name, t, M.octopia_factory(getattr(M, cls), name, routing))
    first = first_deviation(name, run)
    assert first is not None and first.startswith(rid), first


def test_tid_mutant_ignoring_tids_deviates() -> None:
    run = observed("tid", trace("octopia-stock"), M.tid_factory(M.TidIgnoresTid))
    first = first_deviation("tid", run)
    assert first is not None and first.startswith("tid/notification-tid"), first


# -- the JSON Schema of the family's lines -------------------------------------------------
@cache
def _validator() -> Any:
    import json
    from importlib import resources

    import jsonschema

    path = resources.files("pubsub_spec") / "conformance/observations/octopia.schema.json"
    schema = json.loads(path.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _line(ob: Observed) -> dict[str, Any]:
    return {"type": "obs", "seq": ob.seq, **ob.obs.to_json()}


@pytest.mark.parametrize("name", SYSTEMS)
def test_builtin_lines_validate_against_the_family_schema(name: str) -> None:
    v = _validator()
    for gen in ("uniform", "octopia-stock"):
        run = run_of(name, gen, forced=name == "octopia-idr")
        names: Counter[str] = Counter()
        for ob in run.log:
            if names[ob.obs.name] >= 200:  # enough of each name (the floods are long)
                continue
            line = _line(ob)
            errors = [e.message for e in v.iter_errors(line)]
            assert not errors, (line, errors)
            names[ob.obs.name] += 1
        assert set(names) <= set(v.schema["properties"]["name"]["enum"])


@pytest.mark.parametrize(
    "change",
    [
        {"name": "Flood"},  # not a declared name
        {"node": "n3"},  # a trace node where a broker is due
        {"fields": {"civ": ["1"], "link": "alink"}},  # a CIV of strings
        {"fields": {"civ": [], "link": "iLink"}},  # not a link kind
        {"fields": {"civ": []}},  # link missing
        {"kind": "state"},  # a message as a state change (with a receiver)
    ],
)
def test_schema_rejects_a_malformed_notification_line(change: dict[str, Any]) -> None:
    run = run_of("octopia-snr", "octopia-stock")
    line = _line(run.log[_first(list(run.log), lambda o: o.name == "Notification")])
    assert not list(_validator().iter_errors(line))
    assert list(_validator().iter_errors({**line, **change}))
