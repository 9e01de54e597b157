"""Trace format v2 (conformance/FORMAT.md, "Versions"): the system-neutral config separate from
one optional section per system; v1 traces still read and mean what they meant; writers emit
the lowest version that expresses the trace; unknown systems and keys rejected with the field."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from pubsub_spec.conformance.traceio import parse_trace_lines, trace_to_lines
from pubsub_spec.reference import registry
from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.model import Schema
from pubsub_spec.reference.common.ops import Timing
from pubsub_spec.reference.sim.system import ConfigCodec, SystemInfo
from pubsub_spec.reference.thesis.config import ThesisConfig, config_of
from pubsub_spec.reference.thesis.info import THESIS

V1 = (
    '{"format":"pubsub-trace","version":1,"trace_id":"t","seed":1,"generator":"manual",'
    '"schemas":[{"name":"s","attributes":[{"name":"a","type":"float","min":0,"max":100}]}],'
    '"semantics":{"matching":"strict"},"config":{"initial_nodes":3,"capacity_min":2,'
    '"cutoff":{"s/a":20},"sub_interarrival_ms":5}}'
)
SUB = '{"seq":1,"op":"subscribe","id":"s1","subscriber":"n0","schema":"s","predicates":{"a":[1,5]}}'


def _v2(config: Mapping[str, Any]) -> str:
    header = json.loads(V1)
    header["version"] = 2
    header["config"] = config
    return json.dumps(header)


def test_v1_and_v2_mean_the_same() -> None:
    v1 = parse_trace_lines([V1, SUB], "v1")
    v2 = parse_trace_lines(
        [
            _v2(
                {
                    "initial_nodes": 3,
                    "sub_interarrival_ms": 5,
                    "systems": {"thesis": {"capacity_min": 2, "cutoff": {"s/a": 20}}},
                }
            ),
            SUB,
        ],
        "v2",
    )
    assert v1 == v2
    assert v1.timing == Timing(sub_interarrival_ms=5.0)
    assert config_of(v1) == ThesisConfig(capacity_min=2, cutoff=(("s/a", 20.0),))


def test_a_thesis_only_trace_is_written_as_v1_unchanged() -> None:
    trace = parse_trace_lines([V1, SUB], "v1")
    lines = trace_to_lines(trace)
    header = json.loads(lines[0])
    assert header["version"] == 1
    # v1 order: initial_nodes, the thesis fields, then the timing
    assert list(header["config"]) == [
        "initial_nodes",
        "capacity_min",
        "cutoff",
        "sub_interarrival_ms",
    ]
    assert parse_trace_lines(lines, "again") == trace


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({"initial_nodes": 3, "systems": {"nosuch": {}}}, "config.systems.nosuch"),
        (
            {"initial_nodes": 3, "systems": {"thesis": {"nosuch": 1}}},
            "config.systems.thesis.nosuch",
        ),
        ({"initial_nodes": 3, "capacity_min": 2}, "config.capacity_min"),
        ({"initial_nodes": 3, "systems": {"thesis": {"pub_p": 2}}}, "config.systems.thesis.pub_p"),
        ({"initial_nodes": 3, "systems": {"thesis": []}}, "config.systems.thesis"),
        ({"initial_nodes": 3, "pub_interarrival_ms": -1}, "config.pub_interarrival_ms"),
    ],
)
def test_v2_rejects_with_the_field(config: Mapping[str, Any], field: str) -> None:
    with pytest.raises(InputError) as err:
        parse_trace_lines([_v2(config), SUB], "bad")
    assert err.value.field == field, str(err.value)


def test_v1_rejects_a_systems_object() -> None:
    header = json.loads(V1)
    header["config"]["systems"] = {"thesis": {}}
    with pytest.raises(InputError) as err:
        parse_trace_lines([json.dumps(header), SUB], "bad")
    assert err.value.field == "config.systems"


@dataclass(frozen=True)
class _Other:
    knob: int = 0


class _OtherCodec(ConfigCodec):
    def default(self) -> _Other:
        return _Other()

    def parse(self, obj: Mapping[str, Any], where: str, schemas: Sequence[Schema]) -> _Other:
        if set(obj) - {"knob"}:
            raise InputError(where, "config.systems.other", "unknown key")
        return _Other(int(obj.get("knob", 0)))

    def to_json(self, section: object) -> dict[str, Any]:
        assert isinstance(section, _Other)
        return {"knob": section.knob} if section.knob else {}


@pytest.fixture
def other_system() -> Iterator[None]:
    info = SystemInfo(
        "other", "-", "-", THESIS.features, THESIS.message_types, (), "", _OtherCodec()
    )
    registry.SYSTEMS["other"] = info
    try:
        yield
    finally:
        del registry.SYSTEMS["other"]


@pytest.mark.usefixtures("other_system")
def test_a_trace_with_another_systems_section_is_written_as_v2() -> None:
    trace = parse_trace_lines([V1, SUB], "v1").with_section("other", _Other(4))
    lines = trace_to_lines(trace)
    header = json.loads(lines[0])
    assert header["version"] == 2
    assert header["config"] == {
        "initial_nodes": 3,
        "sub_interarrival_ms": 5.0,
        "systems": {"other": {"knob": 4}, "thesis": {"capacity_min": 2, "cutoff": {"s/a": 20.0}}},
    }
    back = parse_trace_lines(lines, "again")
    assert back == trace and back.section("other", _Other) == _Other(4)
