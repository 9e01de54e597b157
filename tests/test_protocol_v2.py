"""Process protocol version 2 (conformance/PROTOCOL.md "Version 2", conformance/OBSERVATIONS.md):
`init` says protocol 2, `init_ok` may claim a system, `obs` lines are parsed with their limits
enforced (each error names the field), the adapter collects them per trace, and version-1
programs are unchanged."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pubsub_spec.conformance import protocol
from pubsub_spec.conformance.adapter import run_outside
from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.protocol import InitOk, ProtocolError, parse_reply, reply_to_json
from pubsub_spec.conformance.protocol_rules import CLAIMABLE
from pubsub_spec.conformance.protocol_rules.base import Observed
from pubsub_spec.reference.common.ops import Publish
from pubsub_spec.reference.common.oracle import expected_deliveries
from pubsub_spec.reference.sim.observe import send, state

TRACE = GENERATORS["churn"](1, 0, "tiny")


def obs_line(**over: object) -> str:
    base: dict[str, object] = {"type": "obs", "seq": 6, "kind": "send", "name": "ProbePub",
                               "node": "n3", "to": "n7", "event": "e1",
                               "fields": {"area": [[0, 50], [10, 20]], "hops": 2}}  # fmt: skip
    base.update(over)
    return json.dumps({k: v for k, v in base.items() if v is not None})


def test_init_carries_version_2() -> None:
    init = protocol.init_request({"config": {"initial_nodes": 2}, "schemas": [],
                                  "semantics": {"matching": "strict"}})  # fmt: skip
    assert init["protocol"] == 2 == protocol.PROTOCOL_VERSION


def test_init_ok_claims() -> None:
    assert parse_reply('{"type":"init_ok","features":[]}') == InitOk((), "", 1, "")
    r = parse_reply('{"type":"init_ok","features":["strict"],"protocol":2,"system":"lbdd"}')
    assert r == InitOk(("strict",), "", 2, "lbdd")
    assert parse_reply(json.dumps(reply_to_json(r))) == r
    for system in CLAIMABLE:
        line = json.dumps({"type": "init_ok", "features": [], "protocol": 2, "system": system})
        assert parse_reply(line) == InitOk((), "", 2, system)


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ('{"type":"init_ok","features":[],"protocol":2,"system":"chord"}', "'system'"),
        ('{"type":"init_ok","features":[],"protocol":2}', "needs field 'system'"),
        ('{"type":"init_ok","features":[],"protocol":3,"system":"thesis"}', "'protocol'"),
        ('{"type":"init_ok","features":[],"protocol":true,"system":"thesis"}', "'protocol'"),
        ('{"type":"init_ok","features":[],"system":"thesis"}', "needs 'protocol': 2"),
    ],
)
def test_init_ok_bad_claims(line: str, words: str) -> None:
    with pytest.raises(ProtocolError, match=words):
        parse_reply(line)


def test_obs_parsed() -> None:
    r = parse_reply(obs_line())
    assert r == Observed(6, send("ProbePub", "n3", "n7", event="e1",
                                 area=[[0, 50], [10, 20]], hops=2))  # fmt: skip
    assert json.loads(json.dumps(reply_to_json(r))) == json.loads(obs_line())
    s = parse_reply(obs_line(kind="state", name="split", to=None, event=None,
                             fields={"zone": [[0, 50]], "to": "n9"}))  # fmt: skip
    assert s == Observed(6, state("split", "n3", zone=[[0, 50]], to="n9"))


def nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


BAD: list[tuple[dict[str, object], str]] = [
    ({"kind": "recv"}, "'kind'"),
    ({"seq": -1}, "'seq'"),
    ({"seq": True}, "'seq'"),
    ({"seq": None}, "missing field"),
    ({"name": ""}, "'name'"),
    ({"node": "n" * 257}, "'node' has 257 characters"),
    ({"to": None}, "needs field 'to'"),
    ({"kind": "state"}, "has no field 'to'"),
    ({"event": 7}, "'event'"),
    ({"sub": "s" * 300}, "'sub' has 300 characters"),
    ({"fields": [1]}, "'fields' must be a JSON object"),
    ({"fields": {f"f{i}": i for i in range(65)}}, "65 entries"),
    ({"fields": {"area": {"lo": 1}}}, r"fields\.area must be a JSON scalar or a list"),
    ({"fields": {"area": nested(5)}}, r"fields\.area nests lists deeper than 4"),
    ({"fields": {"k": "x" * 257}}, r"fields\.k is a string of 257"),
    ({"fields": {"k": list(range(10_001))}}, r"fields\.k is a list of 10001"),
    ({"fields": {"": 1}}, "a key of 'fields'"),
]


@pytest.mark.parametrize(("over", "words"), BAD)
def test_obs_limits(over: dict[str, object], words: str) -> None:
    with pytest.raises(ProtocolError, match=words):
        parse_reply(obs_line(**over))


def test_obs_limits_hold_at_the_bound() -> None:
    ok = {"fields": {f"f{i}": nested(4) for i in range(64)}, "node": "n" * 256}
    r = parse_reply(obs_line(**ok))
    assert isinstance(r, Observed) and len(r.obs.fields) == 64


PROGRAM = r'''
import json, os, sys
CLAIM = os.environ.get("CLAIM", "")
OBS = os.environ.get("OBS", "publish")
subs = {}
def out(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "init":
        ok = {"type": "init_ok", "features": ["strict", "lenient", "churn", "multi-schema"],
              "init_protocol": m.get("protocol")}
        if CLAIM:
            ok.update(protocol=2, system=CLAIM)
        out(ok); continue
    if m["type"] == "end":
        out({"type": "obs", "seq": 999, "kind": "state", "name": "bye", "node": "n0"})
        out({"type": "end_ok"}); break
    op = m["op"]
    if op == "subscribe": subs[m["id"]] = m
    elif op == "unsubscribe": subs.pop(m["id"], None)
    elif op in ("leave", "fail"):
        gone = {m.get("node")} | set(m.get("nodes", []))
        subs = {k: v for k, v in subs.items() if v["subscriber"] not in gone}
    elif op == "publish":
        for sid, s in sorted(subs.items()):
            vals = m["values"]
            if s["schema"] == m["schema"] and all(
                a in vals and lo <= vals[a] <= hi for a, (lo, hi) in s["predicates"].items()):
                out({"type": "obs", "seq": m["seq"], "kind": "send", "name": "EventDelivery",
                     "node": m["publisher"], "to": s["subscriber"], "event": m["id"],
                     "sub": sid, "fields": {"hops": 1}})
                out({"type": "deliver", "event": m["id"], "sub": sid})
        if OBS == "bad":
            out({"type": "obs", "seq": m["seq"], "kind": "send", "name": "X", "node": "n0"})
    out({"type": "ack", "seq": m["seq"]})
'''


def program(tmp_path: Path, **env: str) -> str:
    path = tmp_path / "v2.py"
    path.write_text(PROGRAM)
    words = " ".join(f"{k}={v}" for k, v in env.items())
    return f"{words} {sys.executable} {path}".strip()


def test_adapter_collects_observations(tmp_path: Path) -> None:
    out = run_outside(program(tmp_path, CLAIM="thesis"), TRACE)
    assert out.verdict == "ok", out.reason
    assert (out.protocol, out.system) == (2, "thesis")
    publishes = {op.seq: op.event.id for op in TRACE.ops if isinstance(op, Publish)}
    sends = [o for o in out.observations if o.obs.kind == "send"]
    assert len(sends) == len(expected_deliveries(TRACE)) > 0
    assert all(publishes[o.seq] == o.obs.event for o in sends)
    assert out.observations[-1] == Observed(999, state("bye", "n0"))  # after `end`, kept
    assert sorted(out.deliveries) == sorted(expected_deliveries(TRACE))


def test_obs_from_a_version_1_program_is_a_protocol_error(tmp_path: Path) -> None:
    out = run_outside(program(tmp_path), TRACE)
    # the end-time obs line of a program that did not opt in is a protocol error
    assert out.verdict == "fail" and out.kind == "protocol", out.reason
    assert "did not opt in" in out.reason and "output line" in out.reason
    assert out.protocol == 1 and out.system == "" and not out.observations


def test_bad_obs_line_names_the_line(tmp_path: Path) -> None:
    out = run_outside(program(tmp_path, CLAIM="thesis", OBS="bad"), TRACE)
    assert out.verdict == "fail" and out.kind == "protocol"
    assert "output line" in out.reason and "needs field 'to'" in out.reason


def test_unknown_claim_names_the_line(tmp_path: Path) -> None:
    out = run_outside(program(tmp_path, CLAIM="chord"), TRACE)
    assert out.verdict == "fail" and out.kind == "protocol"
    assert "output line 1" in out.reason and "'system'" in out.reason and "chord" in out.reason


def test_too_many_observations_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(protocol, "MAX_OBSERVATIONS", 2)
    out = run_outside(program(tmp_path, CLAIM="thesis"), TRACE)
    assert out.verdict == "ok" and len(out.observations) == 2 and out.too_many_observations


SCHEMA = json.loads(
    (Path(__file__).resolve().parent.parent / "conformance" / "observation.schema.json").read_text()
)


def test_schema_agrees_with_the_parser() -> None:
    """observation.schema.json accepts the lines the parser accepts (the built-ins' own and the
    bounds) and rejects those it rejects (except what a schema cannot say: nothing here)."""
    import jsonschema

    from pubsub_spec.conformance.observed import observed_run

    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    check = jsonschema.Draft202012Validator(SCHEMA)
    for builtin in ("reference", "reference-lbdd", "tam", "octopia-snr", "mcgroups"):
        for o in observed_run(builtin, GENERATORS["uniform"](1, 0, "tiny")).log[:300]:
            line = reply_to_json(o)
            assert parse_reply(json.dumps(line)) == o
            check.validate(line)
    check.validate(json.loads(obs_line(fields={f"f{i}": nested(4) for i in range(64)})))
    for over, _ in BAD:
        line = json.loads(obs_line(**over))
        assert not check.is_valid(line), over
