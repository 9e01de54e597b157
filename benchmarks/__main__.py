"""The benchmarks of every system family, found through the families' contracts
(properties/<family>/contract.py, `benchmarks` and `figures`).

Run: python -m benchmarks                 # list: family, its benchmarks, the figures they print
     python -m benchmarks FAMILY [ARGS]   # run the family's benchmarks in turn, each with ARGS
                                          # (e.g. python -m benchmarks kyra --quick)
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence

from pubsub_spec.properties.contract import contracts


def listing() -> list[str]:
    out = []
    for c in contracts():
        out.append(f"{c.family}: {c.paper}")
        out.append(f"  systems:    {', '.join(c.systems) or '-'}")
        out.append(f"  benchmarks: {', '.join(c.benchmarks) or '-'}")
        for f in c.figures:
            where = f"pubsub-spec figures --only {','.join(f.ids)}" if f.writer else f.benchmark
            out.append(f"  figures:    {f.paper}: {where}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "--list"):
        print(__doc__)
        print("\n".join(listing()))
        return 0
    family, rest = args[0], args[1:]
    chosen = [c for c in contracts() if c.family == family]
    if not chosen:
        print(
            f"error: unknown family {family!r}; known: {', '.join(c.family for c in contracts())}"
        )
        return 2
    code = 0
    for name in chosen[0].benchmarks:
        print(f"== python -m benchmarks.{name} {' '.join(rest)}", flush=True)
        done = subprocess.run([sys.executable, "-m", f"benchmarks.{name}", *rest], check=False)
        code = code or done.returncode
    return code


if __name__ == "__main__":
    sys.exit(main())
