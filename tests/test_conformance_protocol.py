"""The process protocol's messages: every reply line is either accepted as exactly one reply or
rejected with a message that says what is wrong; requests round-trip through JSON."""

from __future__ import annotations

import json

import pytest

from pubsub_spec.conformance import protocol
from pubsub_spec.conformance.protocol import (
    Ack,
    Deliver,
    EndOk,
    Error,
    InitOk,
    ProtocolError,
    parse_reply,
    reply_to_json,
)
from pubsub_spec.conformance.traceio import trace_to_lines
from pubsub_spec.reference.common.model import Attribute, Schema
from pubsub_spec.reference.common.ops import Join, Trace
from pubsub_spec.reference.sim.system import needed_features
from tests.test_conformance_adapter import TRACE


@pytest.mark.parametrize(
    "reply",
    [
        InitOk(("strict", "churn"), "mine"),
        InitOk(()),
        Deliver("e1", "s1"),
        Ack(7),
        Error(3, "abort", True, "no"),
        Error(4, "timeout", False),
        EndOk(),
    ],
)
def test_replies_round_trip(reply: protocol.Reply) -> None:
    assert parse_reply(json.dumps(reply_to_json(reply))) == reply


def test_unknown_fields_are_ignored_and_integer_codes_accepted() -> None:
    assert parse_reply('{"type":"deliver","event":"e1","sub":"s2","node":"n3"}') == Deliver(
        "e1", "s2"
    )
    assert parse_reply('{"type":"error","seq":1,"code":11,"definite":true}') == Error(
        1, "11", True
    )


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("hello", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"seq": 1}', "unknown message type None"),
        ('{"type": "ok"}', "unknown message type 'ok'"),
        ('{"type": "ack"}', "ack: missing field(s) seq"),
        ('{"type": "ack", "seq": "1"}', "field 'seq' must be an integer"),
        ('{"type": "ack", "seq": true}', "field 'seq' must be an integer"),
        ('{"type": "deliver", "event": "e1", "sub": 3}', "field 'sub' must be a non-empty"),
        ('{"type": "deliver", "event": "", "sub": "s"}', "field 'event' must be a non-empty"),
        ('{"type": "init_ok", "features": "strict"}', "must be a list of strings"),
        ('{"type": "error", "seq": 1, "code": "x"}', "missing field(s) definite"),
        ('{"type": "error", "seq": 1, "code": "x", "definite": "yes"}', "true or false"),
        ('{"type": "error", "seq": 1, "code": null, "definite": true}', "field 'code'"),
        ('{"type": "ack", "seq": NaN}', "NaN is not JSON"),
        ('{"type":"end_ok"}' + " " * protocol.MAX_LINE_CHARS, "too long"),
    ],
)
def test_bad_replies_are_rejected_saying_why(line: str, words: str) -> None:
    with pytest.raises(ProtocolError) as e:
        parse_reply(line)
    assert words in str(e.value)


def test_requests_carry_the_trace_header_and_ops_verbatim() -> None:
    lines = trace_to_lines(TRACE)
    header = json.loads(lines[0])
    init = protocol.init_request(header)
    assert init["type"] == "init" and init["protocol"] == protocol.PROTOCOL_VERSION
    assert init["schemas"] == header["schemas"] and init["semantics"] == header["semantics"]
    assert init["nodes"] == [f"n{i}" for i in range(TRACE.initial_nodes)]
    op = json.loads(lines[1])
    assert protocol.op_request(op) == {"type": "op", **op}
    assert json.loads(protocol.encode(protocol.end_request())) == {"type": "end"}


def test_required_features() -> None:
    one = Schema("s", (Attribute("a", "int", 0, 9),))
    two = (one, Schema("t", (Attribute("a", "int", 0, 9),)))
    assert needed_features(Trace((one,), ())) == {"strict"}
    churn = Trace(two, (Join(1, "x"),), matching="lenient")
    assert needed_features(churn) == {"lenient", "churn", "multi-schema"}
    assert set(protocol.FEATURES) >= needed_features(churn)
