"""The worked example conformance/examples/go-lbdd (LBDD in Go; Li Kai, Wang Yun, Yin Yi, Yuan
Feifei, "Load-balancing data distribution in publish/subscribe mode", J. Southeast Univ. 2014):
it builds, its own Go tests pass, it passes the delivery level on the committed vectors and on
default-generator traces, and under protocol version 2 it reports every EventDelivery hop, the
hops of each event forming exactly the tree `build_tree(origin, members)` of
reference/lbdd/algorithms.py (LBDD §3.2-§3.5.1, decisions D-L1..D-L6 in docs/lbdd.md). Skipped
only where Go is absent locally, never in CI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pubsub_spec.cli import main
from pubsub_spec.conformance import protocol
from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.observed import protocol_verdict
from pubsub_spec.conformance.run_vectors import VECTORS
from pubsub_spec.conformance.runner import run_trace_list
from pubsub_spec.conformance.traceio import header_object, op_object, parse_trace_lines
from pubsub_spec.reference.common.ops import (
    Advertise,
    Fail,
    Join,
    Leave,
    Publish,
    Subscribe,
    Trace,
    Unadvertise,
)
from pubsub_spec.reference.common.oracle import expected_deliveries
from pubsub_spec.reference.lbdd.algorithms import build_tree

EXAMPLE = Path(__file__).resolve().parent.parent / "conformance" / "examples" / "go-lbdd"

# a few traces of the default conform generators, churn included
TRACES = [
    GENERATORS[g](3, i, p)
    for g in ("uniform", "churn", "partial-lenient", "identical", "mixed", "degenerate")
    for p in ("tiny", "small")
    for i in (0, 1)
]


def _vectors() -> list[Trace]:
    index = json.loads((VECTORS / "index.json").read_text())
    return [
        parse_trace_lines((VECTORS / e["trace"]).read_text().splitlines(), e["trace"])
        for e in index
    ]


@pytest.fixture(scope="module")
def binary(tmp_path_factory: pytest.TempPathFactory) -> str:
    go = shutil.which("go")
    if go is None:
        if os.environ.get("CI"):
            pytest.fail("go is missing on the CI machine: the LBDD example cannot be built")
        pytest.skip("go is not installed here: the LBDD example cannot be built")
    out = tmp_path_factory.mktemp("go-lbdd") / "go-lbdd"
    env = dict(os.environ, GOFLAGS="-mod=mod", GOTOOLCHAIN="local")
    for argv in ([go, "vet", "."], [go, "test", "."], [go, "build", "-o", str(out), "."]):
        done = subprocess.run(argv, cwd=EXAMPLE, env=env, capture_output=True, text=True)
        assert done.returncode == 0, f"{' '.join(argv)}:\n{done.stdout}{done.stderr}"
    return str(out)


# --- the delivery level ------------------------------------------------------------------------


def test_it_passes_the_committed_vectors(binary: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["verify", "--impl", binary])
    out = capsys.readouterr().out
    total = len(json.loads((VECTORS / "index.json").read_text()))
    assert code == 0, out
    assert f"pass ({total}/{total} traces pass, 0 rejected" in out, out


def test_it_passes_default_generator_traces(binary: str) -> None:
    verdicts = run_trace_list([f"cmd:{binary}"], TRACES)
    assert [(v.trace_id, v.verdict, v.reason) for v in verdicts if v.verdict != "pass"] == []
    assert len(verdicts) == len(TRACES)


# --- the observations, driven directly over protocol version 2 --------------------------------


@dataclass
class Run:
    init_ok: dict[str, Any]
    obs: list[dict[str, Any]] = field(default_factory=list)
    deliveries: list[tuple[str, str]] = field(default_factory=list)


def drive(binary: str, trace: Trace, version: int = 2) -> Run:
    """The dialogue of PROTOCOL.md with `"protocol": version` in init; the program lists no
    `advertisements`, so those ops and a publish's `adv` are left out, as the suite does."""
    proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def send(message: dict[str, Any]) -> None:
        stdin.write(protocol.encode(message) + "\n")
        stdin.flush()

    def until(kind: str) -> dict[str, Any]:
        while True:
            line = json.loads(stdout.readline())
            if line["type"] == "obs":
                run.obs.append(line)
            elif line["type"] == "deliver":
                run.deliveries.append((line["event"], line["sub"]))
            else:
                assert line["type"] == kind, line
                return dict(line)

    run = Run({})
    send({**protocol.init_request(header_object(trace)), "protocol": version})
    run.init_ok = until("init_ok")
    for op in trace.ops:
        if isinstance(op, Advertise | Unadvertise):
            continue
        obj = op_object(op)
        obj.pop("adv", None)
        send(protocol.op_request(obj))
        assert until("ack")["seq"] == op.seq
    send(protocol.end_request())
    until("end_ok")
    stdin.close()
    assert proc.wait(timeout=10) == 0
    return run


def tree_deviation(trace: Trace, run: Run) -> str | None:
    """The first way the run's observations differ from the LBDD tree of each publish (rooted
    at its publisher, over the nodes of its expected subscribers: one `match` at the root, then
    one EventDelivery per edge), or None."""
    subscriber = {op.sub.id: op.sub.subscriber for op in trace.ops if isinstance(op, Subscribe)}
    publishes = {op.event.id: op for op in trace.ops if isinstance(op, Publish)}
    nodes: dict[str, set[str]] = defaultdict(set)
    for d in expected_deliveries(trace):
        nodes[d.event_id].add(subscriber[d.sub_id])
    hops: dict[str, list[dict[str, Any]]] = defaultdict(list)
    roots: list[str] = []
    for o in run.obs:
        if (o["kind"], o["name"]) == ("state", "match"):
            if o["event"] in hops or o["event"] in roots:
                return f"the match of {o['event']} is not its first observation"
            roots.append(o["event"])
        elif (o["kind"], o["name"]) == ("send", "EventDelivery"):
            if o["event"] not in roots:
                return f"a copy of {o['event']} before its match: {o}"
            hops[o["event"]].append(o)
        else:
            return f"unexpected observation {o}"
    if sorted(roots) != sorted(nodes):  # one root per event with a matching subscription
        return f"matches reported for {sorted(roots)}, events matched {sorted(nodes)}"
    for event, op in publishes.items():
        origin = op.event.publisher
        members = sorted(nodes[event] - {origin})
        want = Counter((a, b) for a, bs in build_tree(origin, members).items() for b in bs)
        got = Counter((o["node"], o["to"]) for o in hops.pop(event, []))
        if got != want:
            return f"{event}: hops {sorted(got.elements())} != tree {sorted(want.elements())}"
    for o in run.obs:
        pub = publishes.get(o["event"])
        if pub is None:
            return f"a hop of an event never published: {o}"
        origin = pub.event.publisher
        expect = {"origin": origin, "members": sorted(nodes[o["event"]] - {origin}),
                  "strategy": "lbdd"}  # fmt: skip
        if o["kind"] == "state":
            expect.pop("origin")
            if o["node"] != origin:
                return f"{o}: the root of {o['event']} is its publisher {origin}"
        if o["seq"] != pub.seq or o["fields"] != expect:
            return f"{o} is not reported under seq {pub.seq} with fields {expect}"
    return None


def _churny(trace: Trace) -> bool:
    return any(isinstance(op, Join | Leave | Fail) for op in trace.ops)


def test_the_hops_of_each_event_are_its_lbdd_tree(binary: str) -> None:
    traces = [*_vectors(), *TRACES]
    sent = 0
    for trace in traces:
        run = drive(binary, trace)
        assert run.init_ok["protocol"] == 2 and run.init_ok["system"] == "lbdd"
        assert tree_deviation(trace, run) is None, trace.trace_id
        assert sorted(run.deliveries) == sorted(
            (d.event_id, d.sub_id) for d in expected_deliveries(trace)
        ), trace.trace_id
        sent += len(run.obs)
    # not vacuous: trees of several hops, also on traces with joins, leaves and failures
    assert sent > 500
    assert any(_churny(t) and len(drive(binary, t).obs) > 20 for t in traces)


# --- the protocol level: the suite's own rules (conformance/OBSERVATIONS.md, "thesis and lbdd")


def test_it_conforms_at_the_protocol_level_on_the_committed_vectors(
    binary: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["verify", "--impl", binary, "--level", "protocol"])
    out = capsys.readouterr().out
    total = len(json.loads((VECTORS / "index.json").read_text()))
    assert code == 0, out
    assert out.count("protocol: conforms") == total + 1, out  # every trace and the summary
    assert "deviates" not in out


def test_it_conforms_at_the_protocol_level_on_default_generator_traces(binary: str) -> None:
    verdicts = {t.trace_id: protocol_verdict(f"cmd:{binary}", t) for t in TRACES}
    assert {k: v.describe() for k, v in verdicts.items() if v.status != "conforms"} == {}
    assert {v.system for v in verdicts.values()} == {"lbdd"}


def test_the_tree_check_rejects_a_wrong_bucket_and_a_second_copy(binary: str) -> None:
    trace = next(t for t in TRACES if t.trace_id.startswith("uniform-small"))
    run = drive(binary, trace)
    assert tree_deviation(trace, run) is None
    deep = next(o for o in run.obs if o["kind"] == "send" and o["node"] != o["fields"]["origin"])
    wrong = Run(run.init_ok, [{**deep, "node": deep["fields"]["origin"]}
                              if o is deep else o for o in run.obs])  # fmt: skip
    assert "!= tree" in str(tree_deviation(trace, wrong))  # the origin skips a bucket
    twice = Run(run.init_ok, [*run.obs, deep])
    assert "!= tree" in str(tree_deviation(trace, twice))  # a node receives twice
    rootless = Run(run.init_ok, [o for o in run.obs if o["kind"] != "state"])
    assert "before its match" in str(tree_deviation(trace, rootless))


def test_a_version_1_suite_gets_no_observations(binary: str) -> None:
    trace = next(t for t in TRACES if t.trace_id.startswith("uniform-small"))
    run = drive(binary, trace, version=1)
    assert run.obs == [] and "system" not in run.init_ok and "protocol" not in run.init_ok
    assert sorted(run.deliveries) == sorted(
        (d.event_id, d.sub_id) for d in expected_deliveries(trace)
    )


def test_its_star_fault_delivers_right_and_deviates_at_the_protocol_level(
    binary: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """GO_LBDD_FAULT=star: the root sends every copy itself (point to point): the delivery
    level passes, the protocol level names lbdd/tree-edge (README, docs/implementers.md)."""
    star = f"GO_LBDD_FAULT=star {binary}"
    assert main(["verify", "--impl", star]) == 0
    assert main(["verify", "--impl", star, "--level", "protocol"]) == 1
    out = capsys.readouterr().out
    assert "protocol: deviates (lbdd/tree-edge)" in out.splitlines()[-1], out[-2000:]
    assert "is not an edge of the LBDD tree" in out
