"""`pubsub-spec`: one sub-command per job; each lives in its own module `pubsub_spec.cmd_<name>`
with `add_arguments(parser)` and `run(args) -> int` (exit code)."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

COMMANDS: dict[str, str] = {
    "systems": "list the simulated systems with their variants, features and message types",
    "simulate": "run a workload on a simulated system and compare with the oracle (thesis Ch. 4)",
    "lbdd": "show the LBDD dissemination tree for a set of addresses (LBDD)",
    "check": "run every invariant check (z3, TLA+, Hypothesis) and print one table",
    "generate": "generate conformance trace sets with Spark",
    "conform": "the conformance suite: generate traces, run implementations, write a report",
    "figures": "thesis Ch. 4 figure by figure (Figs. 4.1-4.10, Table 4.5): PNG, CSV, one page",
    "verify": "run an implementation on the conformance vectors, without Spark",
    "vectors": "the implementer's kit: `vectors export DIR` writes the vectors release tarball",
}


def _available(only: Sequence[str] = tuple(COMMANDS)) -> dict[str, ModuleType]:
    mods: dict[str, ModuleType] = {}
    for name in only:
        try:
            mods[name] = importlib.import_module(f"pubsub_spec.cmd_{name}")
        except ModuleNotFoundError as e:
            if e.name != f"pubsub_spec.cmd_{name}":
                raise
    return mods


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="pubsub-spec",
        description=__doc__,
        epilog="exit codes: 0 pass, 1 a check or implementation failed, 2 bad input, "
        "3 an environment problem (the fix is named); docs/ci.md",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    argv = sys.argv[1:] if argv is None else argv
    # a command given: only its module imported (the others' imports cost a simulation about
    # 0.2 s of CPU); none, an unknown one or --help: every command, for the usage and choices
    mods = _available(argv[:1] if argv[:1] and argv[0] in COMMANDS else tuple(COMMANDS))
    for name, mod in mods.items():
        p = sub.add_parser(name, help=COMMANDS[name], description=COMMANDS[name])
        mod.add_arguments(p)
    args = parser.parse_args(argv)
    if args.command in STOPPABLE:
        return _stoppable(mods[args.command], args)
    code: int = mods[args.command].run(args)
    return code


# commands whose own work ends at SIGINT/SIGTERM (conform and verify write what they know first)
STOPPABLE = ("simulate", "figures")


def _stoppable(mod: ModuleType, args: argparse.Namespace) -> int:
    """SIGINT/SIGTERM end the command with one line, no traceback, exit 128 + signal (130,
    143: docs/ci.md); its worker processes die with it (conformance/lifeline.py)."""
    from pubsub_spec.conformance.lifeline import Interrupted, interruptible

    try:
        with interruptible():
            code: int = mod.run(args)
            return code
    except Interrupted as stop:
        print(f"\n{args.command}: interrupted by {stop.name}", file=sys.stderr, flush=True)
        return stop.exit_code
    except MemoryError:  # under the memory limit simulate sets (conformance/limits.py)
        from pubsub_spec.conformance.limits import MEMORY_ENV

        print(f"\nerror: {args.command} ran out of memory under its limit; a smaller run, or "
              f"raise it with {MEMORY_ENV} (0 for none)", file=sys.stderr, flush=True)  # fmt: skip
        return 2


if __name__ == "__main__":
    sys.exit(main())
