"""Advertisements in the trace format (FORMAT.md "Advertisements"): every reader rule
names its line and field, round trips through NDJSON and Parquet, the optional feature
`advertisements` (never a skip; ops sent only to a program that lists it), no-ops in the systems
without it, OctopiA and TID driven by the ops, and every built-in passing or skipping with a
reason on the advertisement generators."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from pubsub_spec.conformance.adapter import run_outside
from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.parquet import read_parquet, write_parquet
from pubsub_spec.conformance.runner import run_trace_list
from pubsub_spec.conformance.traceio import parse_trace_lines, trace_to_lines
from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.model import Predicate
from pubsub_spec.reference.common.ops import (
    Advertise,
    Join,
    Publish,
    Unadvertise,
    has_advertisements,
    validate_trace,
)
from pubsub_spec.reference.common.oracle import expected_deliveries
from pubsub_spec.reference.octopia.info import INFOS
from pubsub_spec.reference.octopia.system import OctopiaSystem
from pubsub_spec.reference.registry import SYSTEMS
from pubsub_spec.reference.sim.run import run_and_compare
from pubsub_spec.reference.sim.system import (
    ADVERTISEMENTS,
    OPTIONAL_FEATURES,
    System,
    missing_features,
    needed_features,
)

ADV_GENERATORS = ("octopia-stock", "octopia-burst")

HEAD = (
    '{"format":"pubsub-trace","version":2,"trace_id":"t","seed":0,"generator":"manual",'
    '"schemas":[{"name":"s","attributes":[{"name":"a","type":"float","min":0,"max":10},'
    '{"name":"b","type":"int","min":0,"max":5}]}],'
    '"semantics":{"matching":"strict"},"config":{"initial_nodes":3}}'
)
ADV = '{"seq":1,"op":"advertise","id":"a1","publisher":"n0","schema":"s","predicates":{"a":[0,5]}}'
SUB = '{"seq":2,"op":"subscribe","id":"s1","subscriber":"n1","schema":"s","predicates":{"a":[1,9]}}'
PUB = '{"seq":3,"op":"publish","id":"e1","publisher":"n0","schema":"s","values":{"a":2}}'
UNADV2 = '{"seq":2,"op":"unadvertise","id":"a1"}'
UNADV3 = '{"seq":3,"op":"unadvertise","id":"a1"}'
ADV2 = ADV.replace('"a1"', '"a2"').replace('"seq":1', '"seq":2')
GOOD = [HEAD, ADV, SUB, PUB, '{"seq":4,"op":"unadvertise","id":"a1"}']


def _rejects(lines: list[str]) -> InputError:
    with pytest.raises(InputError) as info:
        parse_trace_lines(lines, "t.ndjson")
    return info.value


def test_good_trace_reads_with_its_ops_and_the_same_deliveries_as_without() -> None:
    t = parse_trace_lines(GOOD, "t.ndjson")
    assert t.ops[0] == Advertise(1, "a1", "n0", "s", (Predicate("a", 0.0, 5.0),))
    assert t.ops[-1] == Unadvertise(4, "a1")
    assert has_advertisements(t) and ADVERTISEMENTS in needed_features(t)
    plain = replace(t, ops=tuple(op for op in t.ops if not isinstance(op, Advertise | Unadvertise)))
    assert not has_advertisements(plain) and ADVERTISEMENTS not in needed_features(plain)
    assert expected_deliveries(t) == expected_deliveries(plain) != []


# (lines, line number, field, words in the message): one per reader rule
BAD = [
    # the JSON Schema
    ([HEAD, ADV.replace('"id":"a1",', "")], 2, "id", "required"),
    ([HEAD, ADV.replace('"a1"', '""')], 2, "id", ""),
    ([HEAD, ADV.replace('"predicates":{"a":[0,5]}', '"predicates":{}')], 2, "predicates", ""),
    ([HEAD, ADV.replace('"schema"', '"colour":1,"schema"')], 2, "colour", "unexpected"),
    ([HEAD, ADV.replace("[0,5]", "[0]")], 2, "predicates.a", ""),
    ([HEAD, '{"seq":1,"op":"unadvertise"}'], 2, "id", "required"),
    ([HEAD, ADV, PUB.replace("}}", '},"adv":7}')], 3, "adv", ""),
    # version 2 only
    ([HEAD.replace('"version":2', '"version":1'), ADV], 2, "op", "version 2"),
    ([HEAD.replace('"version":2', '"version":1'), PUB.replace("}}", '},"adv":"a1"}')], 2, "adv",
     "version 2"),
    # the predicates follow a subscription's rules
    ([HEAD, ADV.replace('"a":[0,5]', '"z":[0,5]')], 2, "predicates.z", "unknown attribute"),
    ([HEAD, ADV.replace("[0,5]", "[5,0]")], 2, "predicates.a", "inverted"),
    ([HEAD, ADV.replace("[0,5]", "[0,50]")], 2, "predicates.a", "outside domain"),
    ([HEAD, ADV.replace('"schema":"s"', '"schema":"q"')], 2, "schema", ""),
    # ids, liveness, activeness
    ([HEAD, ADV, ADV.replace('"seq":1', '"seq":2')], 3, "id", "duplicate advertisement"),
    ([HEAD, ADV.replace('"n0"', '"n9"')], 2, "publisher", "not live"),
    ([HEAD, '{"seq":1,"op":"unadvertise","id":"a1"}'], 2, "id", "unknown or inactive"),
    ([HEAD, ADV, UNADV2, UNADV3], 4, "id", "unknown or inactive"),
    # a leave ends the publisher's advertisements (A18)
    ([HEAD, ADV, '{"seq":2,"op":"leave","node":"n0"}', UNADV3], 4, "id", "unknown or inactive"),
    ([HEAD, ADV, '{"seq":2,"op":"fail","nodes":["n0"]}', UNADV3], 4, "id", "unknown or inactive"),
    # conformance (A7) of every publish once the trace has advertisement ops
    ([HEAD, ADV, PUB.replace('"a":2', '"a":6')], 3, "publisher", "conforms to no active"),
    ([HEAD, ADV, PUB.replace('"a":2', '"b":2')], 3, "publisher", "conforms to no active"),
    ([HEAD, ADV, PUB.replace('"n0"', '"n1"')], 3, "publisher", "conforms to no active"),
    ([HEAD, ADV, UNADV2, PUB], 4, "publisher", "no active"),
    ([HEAD, '{"seq":1,"op":"join","node":"n5"}', ADV2, PUB.replace('"n0"', '"n5"')], 4,
     "publisher", "conforms to no active"),
    ([HEAD, PUB.replace("}}", '},"adv":"a1"}')], 2, "adv", "unknown or inactive"),
    ([HEAD, ADV, ADV2.replace('"n0"', '"n1"'), PUB.replace("}}", '},"adv":"a2"}')], 4, "adv",
     "not 'n0'"),
    ([HEAD, ADV, ADV2.replace("[0,5]", "[6,9]"), PUB.replace("}}", '},"adv":"a2"}')], 4, "adv",
     "does not conform"),
]  # fmt: skip


@pytest.mark.parametrize(("lines", "line", "field", "words"), BAD)
def test_bad_advertisement_ops_are_named_by_line_and_field(
    lines: list[str], line: int, field: str, words: str
) -> None:
    e = _rejects(lines)
    assert e.where.startswith(f"t.ndjson line {line}"), (e.where, e.field, e.message)
    assert e.field == field, (e.field, e.message)
    assert words in e.message


def test_publish_conforming_to_a_later_readvertisement_is_accepted() -> None:
    """The rule follows activeness: an unadvertised block can be re-advertised under a new id."""
    lines = [
        HEAD,
        ADV,
        '{"seq":2,"op":"unadvertise","id":"a1"}',
        ADV.replace('"a1"', '"a2"').replace('"seq":1', '"seq":3'),
        PUB.replace('"seq":3', '"seq":4').replace("}}", '},"adv":"a2"}'),
    ]
    t = parse_trace_lines(lines, "t.ndjson")
    assert isinstance(t.ops[-1], Publish) and t.ops[-1].adv == "a2"


@pytest.mark.parametrize("gen", ADV_GENERATORS)
def test_round_trip_ndjson_and_parquet(gen: str, tmp_path: Path) -> None:
    traces = [GENERATORS[gen](5, 0, p) for p in ("tiny", "small")]
    for t in traces:
        validate_trace(t)
        lines = trace_to_lines(t)
        assert json.loads(lines[0])["version"] == 2
        assert parse_trace_lines(lines, f"{t.trace_id}.ndjson") == t
        kinds = {json.loads(x)["op"] for x in lines[1:]}
        assert {"advertise", "publish"} <= kinds
        assert any('"adv":' in x for x in lines[1:])
    if gen == "octopia-stock":
        assert any(isinstance(op, Unadvertise) for t in traces for op in t.ops)
    write_parquet(traces, tmp_path / "pq")
    assert read_parquet(tmp_path / "pq") == sorted(traces, key=lambda t: t.trace_id)


def test_old_generators_stay_v1_without_advertisements() -> None:
    for name in ("uniform", "churn", "zipf"):
        t = GENERATORS[name](5, 0, "tiny")
        assert not has_advertisements(t)
        assert json.loads(trace_to_lines(t)[0])["version"] == 1


def test_advertisements_are_optional_never_a_reason_to_skip() -> None:
    t = GENERATORS["octopia-stock"](5, 0, "tiny")
    assert ADVERTISEMENTS in OPTIONAL_FEATURES and ADVERTISEMENTS in needed_features(t)
    assert missing_features(t, frozenset({"strict"})) is None
    assert missing_features(t, frozenset({"lenient"})) == "needs unsupported feature(s): strict"
    assert ADVERTISEMENTS not in SYSTEMS["thesis"].features
    for info in INFOS:
        assert ADVERTISEMENTS in info.features


def test_base_system_ignores_advertisement_ops_and_refuses_others() -> None:
    thesis = SYSTEMS["thesis"].variants[0].make(GENERATORS["uniform"](1, 0, "tiny"))
    assert isinstance(thesis, System)
    thesis.apply_other(Advertise(1, "a", "n0", "s", (Predicate("a", 0.0, 1.0),)))
    thesis.apply_other(Unadvertise(2, "a"))
    with pytest.raises(ValueError, match="does not take op Join"):
        thesis.apply_other(Join(3, "n99"))


def test_octopia_routes_by_the_trace_advertisements_not_implicit_ones() -> None:
    """scotAFP sends each advertisement to the host's m-1 secondary neighbours (§V): the count
    of Advertisement messages pins that the ops drove it and that O-IMPLICIT stayed off."""
    t = GENERATORS["octopia-stock"](5, 0, "small")
    n_adv = sum(isinstance(op, Advertise) for op in t.ops)
    n_unadv = sum(isinstance(op, Unadvertise) for op in t.ops)
    result, cmp = run_and_compare(t, SYSTEMS["octopia-snr"].variants[0].make)
    assert cmp.agree and cmp.expected > 0
    system = result.system
    assert isinstance(system, OctopiaSystem)
    m = system.scot.m
    assert system.metrics.sends["Advertisement"] == n_adv * (m - 1)
    assert system.metrics.sends["Unadvertisement"] == n_unadv * (m - 1)
    assert all(not a.startswith("implicit:") for a in system.adverts)


def test_octopia_ignoring_the_ops_is_caught() -> None:
    """Mutant: an OctopiA that ignores advertisement ops has nothing to route by."""

    class Deaf(OctopiaSystem):
        def apply_other(self, op: object) -> None:
            return None

    t = GENERATORS["octopia-stock"](5, 0, "tiny")
    with pytest.raises(ValueError, match="conforms to no advertisement"):
        run_and_compare(t, lambda tr: Deaf.for_trace(tr, "octopia-snr", "snr"))


def test_burst_overloads_and_idr_detours() -> None:
    t = GENERATORS["octopia-burst"](2026, 0, "small")
    result, cmp = run_and_compare(t, SYSTEMS["octopia-idr"].variants[0].make)
    assert cmp.agree
    assert isinstance(result.system, OctopiaSystem)
    cases = result.system.metrics.idr_cases
    assert cases["i"] > 0 and cases["iv"] > 0 and result.system.metrics.civ_n > 0


RECORDER = """
import json, os, sys
feats = os.environ["FEATS"].split(",")
log = open(os.environ["LOG"], "w")
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "init":
        print(json.dumps({"type": "init_ok", "features": feats}), flush=True)
    elif m["type"] == "end":
        print(json.dumps({"type": "end_ok"}), flush=True)
        break
    else:
        log.write(line)
        print(json.dumps({"type": "ack", "seq": m["seq"]}), flush=True)
log.close()
"""


@pytest.mark.parametrize("listed", [False, True])
def test_adapter_sends_advertisement_ops_only_to_who_lists_the_feature(
    listed: bool, tmp_path: Path
) -> None:
    prog = tmp_path / "rec.py"
    prog.write_text(RECORDER)
    log = tmp_path / "log.ndjson"
    feats = "strict,multi-schema" + (",advertisements" if listed else "")
    t = GENERATORS["octopia-stock"](5, 0, "tiny")
    out = run_outside(f"FEATS={feats} LOG={log} {sys.executable} {prog}", t, op_timeout=10.0)
    assert out.verdict == "ok", out.reason
    got = [json.loads(x) for x in log.read_text().splitlines()]
    kinds = {m["op"] for m in got}
    has_adv_field = any("adv" in m for m in got)
    if listed:
        assert len(got) == len(t.ops) and "advertise" in kinds and has_adv_field
    else:
        assert not kinds & {"advertise", "unadvertise"} and not has_adv_field
        assert len(got) == sum(not isinstance(op, Advertise | Unadvertise) for op in t.ops)


def test_every_builtin_passes_or_skips_with_a_reason_on_the_advertisement_traces() -> None:
    traces = [GENERATORS[g](2026, 0, "tiny") for g in ADV_GENERATORS]
    names = [v.builtin for info in SYSTEMS.values() for v in info.variants]
    names += ["oracle-python", "oracle-indexed", "reference-array", "reference-fast"]
    verdicts = run_trace_list(names, traces)
    assert len(verdicts) == len(names) * len(traces)
    for v in verdicts:
        assert v.verdict == "pass" or (v.verdict == "skipped" and v.reason), v.describe()
    assert sum(v.verdict == "pass" for v in verdicts) == len(verdicts)


def test_trace_conformance_rule_is_octopias() -> None:
    """`Advertise.admits` (validator) and OctopiA's `conforms` (A7) agree on every pair."""
    from pubsub_spec.reference.octopia.advertisements import Advertisement, conforms

    t = GENERATORS["octopia-stock"](9, 0, "small")
    advs = [op for op in t.ops if isinstance(op, Advertise)]
    events = [op.event for op in t.ops if isinstance(op, Publish)]
    yes = 0
    for a in advs:
        adv = Advertisement(a.id, a.publisher, a.schema, a.predicates)
        for e in events:
            assert a.admits(e) == conforms(e, adv)
            yes += a.admits(e)
    assert 0 < yes < len(advs) * len(events)
