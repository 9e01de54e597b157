"""`pubsub-spec systems`: the registry of simulated systems (reference/registry.py), each with
its paper, its variants (conformance built-ins, and for the thesis the delivery strategies),
the features it supports (a trace needing another is skipped) and its message types."""

from __future__ import annotations

import argparse

from pubsub_spec.reference.registry import SYSTEMS
from pubsub_spec.reference.sim.system import FEATURES, OPTIONAL_FEATURES


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--verbose", "-v", action="store_true", help="describe each message type")


def lines(verbose: bool) -> list[str]:
    out: list[str] = []
    for info in SYSTEMS.values():
        out += [
            f"{info.name}: {info.summary}",
            f"  paper:         {info.paper}",
            "  variants:      "
            + ", ".join(
                f"{v.builtin}{' (default)' if v.builtin == info.default_variant else ''}"
                for v in info.variants
            ),
        ]
        if verbose:
            out += [f"    {v.builtin}: {v.doc}" for v in info.variants]
        # an optional feature lacking is no restriction (OPTIONAL_FEATURES): not listed
        lacking = [f for f in FEATURES if f not in info.features | OPTIONAL_FEATURES]
        out.append(
            f"  features:      {', '.join(f for f in FEATURES if f in info.features)}"
            + (f" (not: {', '.join(lacking)})" if lacking else "")
        )
        out.append(f"  message types: {', '.join(t.name for t in info.message_types)}")
        if verbose:
            out += [f"    {t.name}: {t.doc}" for t in info.message_types]
        out.append(f"  config section: {'config.systems.' + info.name if info.config else '-'}")
        out.append("")
    return out


def run(args: argparse.Namespace) -> int:
    for line in lines(args.verbose):
        print(line)
    return 0
