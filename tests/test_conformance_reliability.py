"""Every input reader rejects bad input naming file, line and field, and nothing bad in a batch
stops the rest of it: the malformed corpus (tests/data/malformed/), FIFOs and device
files, index entries pointing outside, duplicate and misplaced trace ids, report escaping, CLI
numbers. No Spark: `generate --check` gets the Python oracle in place of the SQL one."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import threading
from pathlib import Path

import pytest

from pubsub_spec.cmd_verify import main
from pubsub_spec.conformance.report import markdown
from pubsub_spec.conformance.run_vectors import VECTORS, collect_traces, run_vectors
from pubsub_spec.conformance.runner import run_traces
from pubsub_spec.conformance.traceio import (
    MAX_DEPTH,
    TraceRejection,
    parse_expected_lines,
    read_text_file,
    read_trace,
    read_trace_batch,
)
from pubsub_spec.conformance.verdict import Verdict
from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.ops import Trace

MALFORMED = Path(__file__).resolve().parent / "data" / "malformed"
GOOD = "uniform-tiny-0000"

# file -> (line, field, words): each class of the corpus, rejected where it is
CORPUS = {
    "deep-nesting": (3, "(json)", f"nested deeper than {MAX_DEPTH} levels"),
    "int-beyond-double": (3, "(json)", "(401 digits) is outside the range of a double"),
    "int-just-beyond-double": (3, "(json)", "is outside the range of a double"),
    "int-thousands-of-digits": (3, "(json)", "(5000 digits) is outside the range"),
    "float-beyond-double": (3, "(json)", "number 1e400 is outside the range of a double"),
    "config-beyond-double": (1, "(json)", "number 1e400 is outside the range of a double"),
    "nan": (3, "(json)", "NaN is not a JSON number"),
    "duplicate-key": (3, "(json)", "duplicate key 'seq'"),
    "empty-line": (2, "(line)", "empty line"),
    "id-differs-from-file": (1, "trace_id", "differs from the file name"),
    "odd-id": (1, "trace_id", "is not a name of letters, digits"),
    "not-utf8": (0, "(file)", "not UTF-8"),
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_each_malformed_class_is_rejected_naming_line_and_field(name: str) -> None:
    line, field, words = CORPUS[name]
    good, bad = read_trace_batch([MALFORMED / f"{name}.ndjson"])
    assert not good and len(bad) == 1
    e = bad[0].error
    assert e.field == field and words in e.message, str(e)
    assert f"{name}.ndjson" in e.where and (line == 0 or e.where.endswith(f" line {line}"))


def test_the_corpus_lists_every_file() -> None:
    traces = {
        p.name.removesuffix(".ndjson")
        for p in MALFORMED.glob("*.ndjson")
        if not p.name.endswith(".expected.ndjson")
    }
    assert traces == set(CORPUS) | {"deep-expected", "huge-expected"}


@pytest.fixture()
def batch(tmp_path: Path) -> list[Path]:
    """The whole corpus plus one good vector, in one directory."""
    for p in MALFORMED.glob("*.ndjson"):
        shutil.copy(p, tmp_path / p.name)
    for suffix in (".ndjson", ".expected.ndjson"):
        shutil.copy(VECTORS / f"{GOOD}{suffix}", tmp_path / f"{GOOD}{suffix}")
    return sorted(p for p in tmp_path.glob("*.ndjson") if not p.name.endswith(".expected.ndjson"))


def test_a_batch_of_malformed_traces_gives_every_trace_a_verdict(batch: list[Path]) -> None:
    verdicts = run_traces(["oracle-python"], batch)
    assert len(verdicts) == len(batch)
    by = {v.trace_id: v for v in verdicts}
    assert by[GOOD].verdict == "pass", by[GOOD].describe()
    for name in CORPUS:
        assert (by[name].verdict, by[name].kind) == ("skipped", "bad-trace"), by[name].describe()
    for name, words in (("deep-expected", "nested deeper"), ("huge-expected", "(5000 digits)")):
        v = by[name]
        assert (v.verdict, v.kind) == ("skipped", "bad-expected") and words in v.reason
        assert f"{name}.expected.ndjson line 1: field '(json)'" in v.reason


def test_expected_file_reader_limits() -> None:
    with pytest.raises(InputError, match="nested deeper"):
        parse_expected_lines(['{"event":"e1","deliveries":' + "[" * 100 + "]" * 100 + "}"])
    with pytest.raises(InputError, match="outside the range of a double"):
        parse_expected_lines(['{"event":"e1","deliveries":[1' + "0" * 320 + "]}"])


def test_fifos_and_devices_are_rejected_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.ndjson"
    os.mkfifo(fifo)
    done: list[tuple[list[Trace], list[TraceRejection]]] = []
    reader = threading.Thread(target=lambda: done.append(read_trace_batch([fifo])), daemon=True)
    reader.start()
    reader.join(timeout=30)
    assert done, "reading a FIFO blocked"
    _, bad = done[0]
    assert bad[0].error.message == "not a regular file"
    for device in ("/dev/zero", "/dev/null"):
        if os.path.exists(device):
            with pytest.raises(InputError, match="not a regular file"):
                read_text_file(device)
    with pytest.raises(InputError, match="not a regular file"):
        read_trace(tmp_path)  # a directory
    # in a batch: the FIFO and an expected file that is a FIFO are rejected, the rest runs
    shutil.copy(VECTORS / f"{GOOD}.ndjson", tmp_path / f"{GOOD}.ndjson")
    os.mkfifo(tmp_path / f"{GOOD}.expected.ndjson")
    vs = run_traces(["oracle-python"], [fifo, tmp_path / f"{GOOD}.ndjson"])
    assert [v.kind for v in vs] == ["bad-trace", "bad-trace"]
    assert "not a regular file" in vs[1].reason and "expected.ndjson" in vs[1].reason


def test_files_beyond_the_size_limit_are_not_read(tmp_path: Path) -> None:
    big = tmp_path / "big.ndjson"
    big.write_bytes(b"x" * 2048)
    with pytest.raises(InputError, match="larger than 1024 bytes"):
        read_text_file(big, max_bytes=1024)


def test_index_entries_are_confined_to_their_directory(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(VECTORS / f"{GOOD}.ndjson", outside / f"{GOOD}.ndjson")
    sets = tmp_path / "set"
    sets.mkdir()
    for suffix in (".ndjson", ".expected.ndjson"):
        shutil.copy(VECTORS / f"{GOOD}{suffix}", sets / f"{GOOD}{suffix}")
    (sets / "link.ndjson").symlink_to(outside / f"{GOOD}.ndjson")
    entries = [f"../outside/{GOOD}.ndjson", str(outside / f"{GOOD}.ndjson"), "link.ndjson",
               f"{GOOD}.ndjson", 7]  # fmt: skip
    (sets / "index.json").write_text(json.dumps({"traces": [{"trace": e} for e in entries]}))
    paths, bad = collect_traces(sets)
    assert [p.name for p in paths] == [f"{GOOD}.ndjson"]
    assert [e.field for e in bad] == [f"traces[{i}].trace" for i in (0, 1, 2, 4)]
    assert all("index.json line 1" in e.where for e in bad)
    verdicts = run_vectors("oracle-python", [sets])
    assert [v.verdict for v in verdicts] == ["skipped"] * 4 + ["pass"]
    (sets / "index.json").write_text("[[[[" * 20 + "]]]]" * 20)
    paths, bad = collect_traces(sets)
    assert not paths and "nested deeper" in str(bad[0])
    (sets / "index.json").write_text('{"traces": 3}')
    assert "expected a list" in str(collect_traces(sets)[1][0])


def test_duplicate_and_misplaced_trace_ids_are_rejected(tmp_path: Path) -> None:
    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        for suffix in (".ndjson", ".expected.ndjson"):
            shutil.copy(VECTORS / f"{GOOD}{suffix}", tmp_path / sub / f"{GOOD}{suffix}")
    paths = [tmp_path / "a" / f"{GOOD}.ndjson", tmp_path / "b" / f"{GOOD}.ndjson"]
    good, bad = read_trace_batch(paths)
    assert len(good) == 1 and bad[0].error.field == "trace_id"
    assert "is also the id of" in bad[0].error.message
    vs = run_traces(["oracle-python"], paths)
    assert [v.verdict for v in vs] == ["pass", "skipped"] and "is also the id of" in vs[1].reason


def test_generate_check_fails_on_duplicate_and_misplaced_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`generate --check` with the Python oracle standing in for the Spark SQL one: the
    misplaced trace is rejected, nothing is written under a wrong name, exit status 1."""
    from pubsub_spec.cmd_generate import _check
    from pubsub_spec.conformance import spark_oracle
    from pubsub_spec.reference.common.oracle import expected_deliveries

    def python_oracle(spark: object, paths: list[Path]) -> dict[str, list[tuple[str, str]]]:
        out = {}
        for p in paths:
            t = read_trace(p)
            out[t.trace_id] = [(d.event_id, d.sub_id) for d in expected_deliveries(t)]
        return out

    monkeypatch.setattr(spark_oracle, "spark_expected", python_oracle)
    shutil.copy(VECTORS / f"{GOOD}.ndjson", tmp_path / f"{GOOD}.ndjson")
    shutil.copy(VECTORS / f"{GOOD}.ndjson", tmp_path / "copy.ndjson")  # declares GOOD's id
    assert _check(None, tmp_path, 0.0) == 1
    written = sorted(p.name for p in tmp_path.glob("*.expected.ndjson"))
    assert written == [f"{GOOD}.expected.ndjson"]
    want = (VECTORS / f"{GOOD}.expected.ndjson").read_text()
    assert (tmp_path / written[0]).read_text() == want


def test_report_escapes_ids_and_reasons() -> None:
    nasty = "x|y`z\n# <b>*"
    vs = [
        Verdict("cmd:a|b", nasty, "g|h", "fail", reason="bad | line\n## heading", kind="crash"),
        Verdict("cmd:a|b", "r", "g", "skipped", reason=f"bad trace: {nasty}", kind="bad-trace"),
    ]
    text = markdown(vs, "T", [])
    span = "``x|y`z # <b>*``"  # the id, whole, in a code span its backtick cannot close
    assert span in text
    plain = text.replace(span, "")  # a code span is literal text
    assert "<b>" not in plain and "\n# <" not in text and "\n## heading" not in text
    for line in text.split("## All verdicts", 1)[1].splitlines():
        if line.startswith("| cmd:"):  # a table row keeps its four cells
            cells = line.replace("\\|", "").strip("|").split("|")
            assert len(cells) == 4, line


def _parser(module: str) -> argparse.ArgumentParser:
    import importlib

    p = argparse.ArgumentParser(prog=module, exit_on_error=True)
    importlib.import_module(f"pubsub_spec.{module}").add_arguments(p)
    return p


@pytest.mark.parametrize(
    ("module", "argv", "words"),
    [
        ("cmd_conform", ["--count", "0"], "must be >= 1, got 0"),
        ("cmd_conform", ["--op-timeout", "nan"], "must be a finite number"),
        ("cmd_conform", ["--op-timeout", "inf"], "must be a finite number"),
        ("cmd_conform", ["--op-timeout", "-1"], "must be in (0, 86400]"),
        ("cmd_conform", ["--impl", ""], "must not be empty"),
        ("cmd_conform", ["--impl", "   "], "must not be empty"),
        ("cmd_conform", ["--seed", "1e3"], "expected an integer"),
        ("cmd_conform", ["--generators", ",,"], "expected at least one name"),
        ("cmd_generate", ["--count", "-3"], "must be >= 1, got -3"),
        ("cmd_generate", ["--partitions", "0"], "must be >= 1, got 0"),
        ("cmd_generate", ["--seed", str(2**63)], "must be in"),
        ("cmd_generate", ["--check", "/no/such/dir"], "not a directory"),
        ("cmd_lbdd", ["--random", "-1"], "must be in [0, 1e+06]"),
        ("cmd_conform", ["--driver-memory", "lots"], "expected a size such as 512m"),
        ("cmd_conform", ["--driver-memory", "100m"], "must be at least 256m"),
        ("cmd_generate", ["--driver-memory", "1.5g"], "expected a size such as 512m"),
    ],
)
def test_cli_numbers_are_validated_with_clear_messages(
    module: str, argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        _parser(module).parse_args(argv)
    assert info.value.code == 2
    assert words in capsys.readouterr().err


def test_a_driver_memory_is_passed_on_as_spark_writes_it() -> None:
    args = _parser("cmd_conform").parse_args(["--driver-memory", "2G"])
    assert args.driver_memory == "2g"
    assert _parser("cmd_generate").parse_args(["--driver-memory", "768mb"]).driver_memory == "768m"


def test_out_being_a_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "file"
    f.write_text("")
    for module in ("cmd_conform", "cmd_generate"):
        with pytest.raises(SystemExit):
            _parser(module).parse_args(["--out", str(f)])
        assert "exists and is not a directory" in capsys.readouterr().err
        with pytest.raises(SystemExit):
            _parser(module).parse_args(["--out", str(f / "below")])
        assert "is not a directory" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--impl", "", str(VECTORS)])
    assert "must not be empty" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--builtin", "oracle-python", "--report", str(f)])
