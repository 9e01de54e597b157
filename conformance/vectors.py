"""The committed vector corpus (conformance/vectors/): small traces with their expected
deliveries, usable without Spark.

  python -m conformance.vectors make             rewrite the corpus (tiny and small profiles)
  python -m conformance.vectors run [--impl CMD] [--builtin NAME] [DIR]
                                                  run an implementation on every vector
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from conformance.generators import GENERATORS
from conformance.runner import run_one
from conformance.traceio import expected_lines, trace_to_lines
from conformance.verdict import Verdict, overall
from reference.oracle import expected_deliveries

VECTORS = Path(__file__).with_name("vectors")
SEED = 2026


def make(out: Path = VECTORS) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    index = []
    for name, gen in GENERATORS.items():
        for profile in ("tiny", "small"):
            trace = gen(SEED, 0, profile)
            path = out / f"{trace.trace_id}.ndjson"
            path.write_text("\n".join(trace_to_lines(trace)) + "\n", encoding="utf-8")
            exp = expected_lines(trace, expected_deliveries(trace))
            path.with_name(f"{trace.trace_id}.expected.ndjson").write_text(
                "\n".join(exp) + "\n", encoding="utf-8"
            )
            index.append({"trace": path.name, "generator": name, "profile": profile})
            written.append(path)
    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    return written


def run(impl: str, directory: Path = VECTORS, op_timeout: float = 5.0) -> list[Verdict]:
    verdicts = []
    for path in sorted(directory.glob("*.ndjson")):
        if path.name.endswith(".expected.ndjson"):
            continue
        exp = path.with_name(path.name.replace(".ndjson", ".expected.ndjson"))
        verdicts.append(
            run_one(impl, path.read_text(), exp.read_text(), str(path), op_timeout=op_timeout)
        )
    return verdicts


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m conformance.vectors", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("make")
    r = sub.add_parser("run")
    r.add_argument("--impl", help="command of an outside implementation (PROTOCOL.md)")
    r.add_argument("--builtin", default="reference", help="a built-in implementation")
    r.add_argument("--op-timeout", type=float, default=5.0)
    r.add_argument("dir", nargs="?", default=str(VECTORS))
    a = p.parse_args(argv)
    if a.cmd == "make":
        for path in make():
            print(path)
        return 0
    impl = f"cmd:{a.impl}" if a.impl else a.builtin
    verdicts = run(impl, Path(a.dir), a.op_timeout)
    for v in verdicts:
        print(f"{v.trace_id:<32} {v.describe()}")
    verdict = overall(verdicts)
    print(f"{impl}: {verdict} ({sum(v.verdict == 'pass' for v in verdicts)}/{len(verdicts)})")
    return 0 if verdict == "pass" else 1


if __name__ == "__main__":
    sys.exit(main())
