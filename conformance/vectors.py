"""The committed vector corpus (conformance/vectors/): small traces with their expected
deliveries, usable without Spark.

  python -m pubsub_spec.conformance.vectors make   rewrite the corpus (tiny and small profiles)

Run an implementation on them with `pubsub-spec verify` (pubsub_spec/cmd_verify.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.run_vectors import run_vectors
from pubsub_spec.conformance.traceio import expected_lines, trace_to_lines
from pubsub_spec.conformance.verdict import Verdict
from pubsub_spec.reference.common.ops import Publish
from pubsub_spec.reference.common.oracle import expected_deliveries

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
            deliveries = expected_deliveries(trace)
            exp = expected_lines(trace, deliveries)
            exp_name = f"{trace.trace_id}.expected.ndjson"
            path.with_name(exp_name).write_text("\n".join(exp) + "\n", encoding="utf-8")
            index.append(
                {
                    "trace": path.name,
                    "expected": exp_name,
                    "generator": name,
                    "profile": profile,
                    "matching": trace.matching,
                    "schemas": len(trace.schemas),
                    "ops": len(trace.ops),
                    "publishes": sum(isinstance(op, Publish) for op in trace.ops),
                    "deliveries": len(deliveries),
                }
            )
            written.append(path)
    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    return written


def run(impl: str, directory: Path = VECTORS, op_timeout: float = 5.0) -> list[Verdict]:
    """`impl` (a built-in name or `cmd:COMMAND`) on every vector of `directory`."""
    return run_vectors(impl, [directory], op_timeout)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["make"]:
        for path in make():
            print(path)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
