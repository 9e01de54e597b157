"""Golden costs: what every registered system sends on one small fixed trace, per message type
(messages, bytes, sends), for each of its variants; tests/test_golden_costs.py compares a fresh
run with tests/data/golden_costs.json exactly, so a change in what a system sends is a diff in
that file, to be reviewed and committed.

Regenerate (after a reviewed change of a system's messages):

    .venv/bin/python -m tests.golden_costs --write

Each system runs the conformance generator's trace named in `TRACES` (seed 1, index 0, profile
`small`: 16 nodes, 40 subscriptions, 40 publishes), chosen so that the system sends as many of
its declared message types as the trace can make it send (the churn trace for the systems with
churn, OctopiA's stock-quote workload for the advertisement-driven ones).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.registry import SYSTEMS
from pubsub_spec.reference.sim.run import run_and_compare
from pubsub_spec.reference.sim.system import System, SystemInfo

GOLDEN = Path(__file__).parent / "data" / "golden_costs.json"
COMMAND = ".venv/bin/python -m tests.golden_costs --write"
SEED, INDEX, PROFILE = 1, 0, "small"
# system -> generator of its fixed trace
TRACES: dict[str, str] = {
    "thesis": "churn",
    "kyra": "uniform",
    "siena": "uniform",
    "mcgroups": "uniform",
    "octopia-snr": "octopia-stock",
    "octopia-idr": "octopia-stock",
    "tid": "octopia-stock",
    "tam": "churn",
    "tam-basic": "churn",
}

Make = Callable[[Trace], System[Any]]


def trace_of(system: str) -> Trace:
    return GENERATORS[TRACES[system]](SEED, INDEX, PROFILE)


def costs(info: SystemInfo, make: Make) -> dict[str, Any]:
    """One run of the system's fixed trace: its deliveries (checked against the oracle) and,
    per message type (every declared one, zeros included, and any other it counted), the
    messages (network hops), bytes and sends."""
    result, cmp = run_and_compare(trace_of(info.name), make)
    assert cmp.agree, f"{info.name}: {cmp.summary()}"
    m = result.metrics
    kinds = [t.name for t in info.message_types]
    kinds += sorted(set(m.messages) - set(kinds))
    return {
        "deliveries": cmp.delivered,
        "messages": {
            k: {"messages": m.messages[k], "bytes": m.bytes[k], "sends": m.sends[k]} for k in kinds
        },
    }


def golden_of(info: SystemInfo) -> dict[str, Any]:
    return {
        "trace": {"generator": TRACES[info.name], "seed": SEED, "index": INDEX, "profile": PROFILE},
        "variants": {v.builtin: costs(info, v.make) for v in info.variants},
    }


def compute() -> dict[str, Any]:
    return {
        "regenerate": COMMAND,
        "systems": {name: golden_of(info) for name, info in sorted(SYSTEMS.items())},
    }


def load() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(GOLDEN.read_text())
    return data


def dumps(data: dict[str, Any]) -> str:
    """JSON with one line per message type (a changed count is a one-line diff)."""
    text = json.dumps(data, indent=1)
    return (
        re.sub(
            r"\{\n\s*(\"messages\": \d+),\n\s*(\"bytes\": \d+),\n\s*(\"sends\": \d+)\n\s*\}",
            r"{\1, \2, \3}",
            text,
        )
        + "\n"
    )


def main(argv: list[str]) -> int:
    if argv != ["--write"]:
        print(f"usage: {COMMAND}", file=sys.stderr)
        return 2
    GOLDEN.write_text(dumps(compute()))
    print(f"wrote {GOLDEN}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
