"""Resource bounds (docs/conformance.md, "Guarantees"): the trace reader refuses sizes beyond
conformance/limits.py naming the place, `simulate` and `conform --ops` refuse oversized runs
before any work (exit 2, the limit and a memory estimate stated), and a built-in's worker runs
under the default memory limit: running out of it is that trace's `unknown`, the others keep
their verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pubsub_spec.cli import main as cli
from pubsub_spec.conformance import impls, limits, traceio
from pubsub_spec.conformance.impls import Implementation
from pubsub_spec.conformance.runner import run_trace_list
from pubsub_spec.conformance.traceio import parse_trace_lines
from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.common.oracle import Delivery, expected_deliveries

ROOT = Path(__file__).resolve().parent.parent
VECTOR = ROOT / "conformance" / "vectors" / "boundaries-tiny-0000.ndjson"


def _lines() -> list[str]:
    return VECTOR.read_text().splitlines()


def _refused(lines: list[str]) -> InputError:
    with pytest.raises(InputError) as e:
        parse_trace_lines(lines, "t.ndjson")
    return e.value


def _with_header(**config: object) -> list[str]:
    lines = _lines()
    header = json.loads(lines[0])
    header["config"] |= config
    return [json.dumps(header), *lines[1:]]


def test_the_committed_vector_is_within_the_bounds() -> None:
    assert parse_trace_lines(_lines(), "t.ndjson").ops  # the tests below change one size


def test_initial_nodes_beyond_the_bound_are_refused() -> None:
    e = _refused(_with_header(initial_nodes=50_000_000))
    assert e.field == "config.initial_nodes" and f"at most {limits.MAX_NODES}" in e.message


def test_a_tam_interval_count_of_a_billion_is_refused() -> None:
    lines = _lines()
    header = json.loads(lines[0])
    del header["config"]["capacity_min"], header["config"]["capacity_max"]  # v1 thesis fields
    del header["config"]["max_depth"]
    header["version"] = 2
    header["config"]["systems"] = {"tam": {"default_intervals": 10**9}}
    e = _refused([json.dumps(header), *lines[1:]])
    assert e.field == "config.systems.tam.default_intervals", e
    assert str(limits.MAX_CONFIG_INT) in e.message


def test_a_10_mb_event_id_is_refused_naming_the_line() -> None:
    lines = _lines()
    n, publish = next((i, json.loads(x)) for i, x in enumerate(lines) if '"publish"' in x)
    publish["id"] = "e" * 10_000_000
    lines[n] = json.dumps(publish)
    e = _refused(lines)
    assert e.where == f"t.ndjson line {n + 1}" and "at most" in e.message


def test_an_id_longer_than_the_bound_is_refused_naming_the_field() -> None:
    lines = _lines()
    n, publish = next((i, json.loads(x)) for i, x in enumerate(lines) if '"publish"' in x)
    publish["id"] = "e" * (limits.MAX_NAME_CHARS + 1)
    lines[n] = json.dumps(publish)
    e = _refused(lines)
    assert e.field == "id" and f"at most {limits.MAX_NAME_CHARS}" in e.message


def test_more_ops_than_the_bound_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _lines()
    monkeypatch.setattr(traceio, "MAX_TRACE_OPS", len(lines) - 2)
    e = _refused(lines)
    assert e.field == "(file)" and f"more than {len(lines) - 2} ops" in e.message


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["simulate", "--nodes", "10000000"], "--nodes: must be in"),
        (["simulate", "--nodes", "200000", "--subs-per-node", "100"], "at most 10,000,000"),
        (["simulate", "--nodes", "100000"], "GiB, more than the memory limit of 4.0 GiB"),
        (["conform", "--ops", str(10**15)], "--ops: must be in"),
        (["generate", "--ops", str(10**15)], "--ops: must be in"),
    ],
)
def test_oversized_runs_are_refused_before_any_work(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = cli(argv)
    except SystemExit as e:
        code = int(e.code or 0)
    err = capsys.readouterr().err
    assert code == 2 and words in err and "Traceback" not in err, err


def _greedy(trace: Trace) -> list[Delivery]:
    """Correct, except on the trace of the smallest seed: it keeps allocating."""
    if trace.trace_id == "greedy":
        hoard = []
        while True:
            hoard.append(bytearray(1 << 24))
    return list(expected_deliveries(trace))


def test_a_builtin_out_of_memory_is_unknown_and_the_batch_keeps_its_verdicts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(limits.MEMORY_ENV, "600M")
    monkeypatch.setitem(impls._REGISTERED, "greedy-test", Implementation("greedy-test", _greedy))
    good = parse_trace_lines(_lines(), "boundaries-tiny-0000.ndjson")
    lines = _lines()
    header = json.loads(lines[0]) | {"trace_id": "greedy"}
    greedy = parse_trace_lines([json.dumps(header), *lines[1:]], "greedy.ndjson")
    verdicts = run_trace_list(["greedy-test"], [good, greedy, good], total_timeout=60)
    assert [v.verdict for v in verdicts] == ["pass", "unknown", "pass"], verdicts
    assert "memory" in verdicts[1].describe()
