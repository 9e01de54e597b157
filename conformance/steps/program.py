"""The reference's handlers as a program speaking the steps dialogue (PROTOCOL.md, "Steps"):
`python -m pubsub_spec.conformance.steps.program [--mutant NAME] [--systems thesis,lbdd]`.
An example of the dialogue for implementers, and, with `--mutant`, a program that
`pubsub-spec verify --steps` must fail (conformance/steps/mutants.py)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from pubsub_spec.conformance.steps import systems
from pubsub_spec.conformance.steps.base import StepInputError
from pubsub_spec.conformance.steps.mutants import MUTANTS


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m pubsub_spec.conformance.steps.program")
    p.add_argument("--mutant", choices=sorted(MUTANTS), default=None)
    p.add_argument("--systems", default="", help="comma-separated (default: every system)")
    a = p.parse_args(argv)
    mine = systems()
    if a.systems:
        mine = {n: s for n, s in mine.items() if n in a.systems.split(",")}
    if a.mutant:
        mutated = MUTANTS[a.mutant]()
        mine[mutated.name] = mutated
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "init":
            steps = {n: [h.name for h in s.handlers] for n, s in mine.items()}
            reply: dict[str, object] = {"type": "init_ok", "name": "reference-steps",
                                        "features": [], "steps": steps}  # fmt: skip
        elif kind == "step":
            try:
                outcome = mine[msg["system"]].apply(msg["pre"], msg["input"])
                reply = {"type": "step_ok", "id": msg["id"], **outcome.documents()}
            except StepInputError as e:
                reply = {"type": "step_ok", "id": msg["id"], "invalid": f"unreadable: {e}"}
        elif kind == "end":
            print(json.dumps({"type": "end_ok"}), flush=True)
            return 0
        else:
            continue
        print(json.dumps(reply, allow_nan=False), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
