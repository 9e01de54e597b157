"""The report of a run at scale: `report.md` (the verdict per implementation, the share of the
traces it ran on, the failures with their smallest failing traces, the stages with time and
peak memory) and `report.json` (`result_json`)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pubsub_spec.conformance.scale.run import ScaleResult


def result_json(r: ScaleResult) -> dict[str, Any]:
    p = asdict(r.plan)
    p.pop("partitions")
    return {
        "plan": {**p, "partitions": r.partitions},
        "traces": r.traces,
        "ops": r.ops,
        "seconds": round(r.seconds, 3),
        "run_cpu": round(r.run_cpu, 3),
        "ops_per_minute": round(r.ops_per_minute),
        "suite_failure": r.suite_failure,
        "driver_heap": r.driver_heap,
        "implementations": [asdict(i) for i in r.impls],
        "failures": [asdict(f) for f in r.failures],
        "protocol_deviations": [asdict(d) for d in r.deviations],
        "stages": [asdict(s) for s in r.stages],
    }


def write_scale_report(out: Path, r: ScaleResult, master: str) -> Path:
    """`out/report.md` and `out/report.json` of a run sized by ops."""
    lines = [
        "# Conformance report (at scale)",
        "",
        f"{r.traces} traces, {r.ops} ops ({', '.join(r.plan.generators)}), profile "
        f"{r.plan.profile}, seed {r.plan.seed}, {r.partitions} partitions, Spark master "
        f"{master}; {r.seconds:.1f} s, {r.ops_per_minute:,.0f} ops/min.",
        "",
        "Expected deliveries: the Spark SQL oracle (compared by fingerprint, docs/conformance.md"
        ' "At scale"). `oracle-python` is its cross-check: a trace where they disagree is a '
        "failure of the suite itself.",
        "",
    ]
    if r.suite_failure:
        lines += [f"**SUITE FAILURE**: {r.suite_failure}.", ""]
    judged = any(i.protocol for i in r.impls)  # conform --ops --level protocol
    lines += [
        "| implementation | verdict | runs on | traces | pass | fail | unknown | skipped |"
        + (" protocol | conforms | deviates | not reported |" if judged else ""),
        "|---|---|---|---|---|---|---|---|" + ("---|---|---|---|" if judged else ""),
    ]
    for i in r.impls:
        share = "every trace" if i.fraction >= 1.0 else f"a sample of {i.fraction:.4g}"
        lines.append(
            f"| {i.impl} | {i.verdict} | {share} ({i.role}) | {i.traces} | {i.passed} | "
            f"{i.failed} | {i.unknown} | {i.skipped} |"
            + (f" {i.protocol} | {i.conforms} | {i.deviates} | {i.not_reported} |"
               if judged else "")
        )  # fmt: skip
    lines += ["", "## Failures", ""]
    for f in r.failures:
        lines.append(f"- {f.impl} on {f.trace_id}: {f.detail or f.verdict + ': ' + f.reason}")
        if f.shrunk:
            lines.append(f"  - smallest failing trace: {f.shrunk}")
    if not r.failures:
        lines.append("None.")
    if judged:
        lines += ["", "## Protocol deviations", ""]
        lines += [f"- {d.impl} on {d.trace_id}: {d.detail or d.protocol}"
                  for d in r.deviations] or ["None."]  # fmt: skip
    lines += ["", "## Stages", "", f"Driver JVM heap (spark.driver.memory): {r.driver_heap}; "
              "memory below is resident (RSS) peaks.", "",
              "| stage | seconds | driver MB | driver JVM MB | executor JVM MB | worker MB |",
              "|---|---|---|---|---|---|"]  # fmt: skip
    for s in r.stages:
        lines.append(
            f"| {s.name} | {s.seconds:.1f} | {s.driver_peak_mb:.0f} | "
            f"{s.driver_jvm_peak_mb:.0f} | {s.executor_jvm_peak_mb:.0f} | {s.worker_peak_mb:.0f} |"
        )
    md = out / "report.md"
    md.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "report.json").write_text(json.dumps(result_json(r), indent=1) + "\n", "utf-8")
    return md

