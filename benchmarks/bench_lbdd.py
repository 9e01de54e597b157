"""LBDD's measured properties next to the paper's (seed 003: Tab. 1 depth 5–9 for 100–500
subscribers; Theorem 2: mean out-degree 2; the publisher sends a fraction of the copies; LBDD
distributes faster than point to point). Random IPv4 addresses, many seeds, one run.

Run: python -m benchmarks.bench_lbdd [--seeds N]
"""

from __future__ import annotations

import argparse
import random
import statistics

from reference.lbdd import build_tree, tree_depth
from reference.lbdd_transfer import over_tree, point_to_point

PAPER_DEPTH = "5-9"


def addresses(rng: random.Random, n: int) -> list[str]:
    out: set[str] = set()
    while len(out) < n:
        out.add(".".join(str(rng.randrange(1, 255)) for _ in range(4)))
    return sorted(out)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--seeds", type=int, default=50)
    a = p.parse_args()
    print(
        "| n | depth min/mean/max (paper: 5–9) | mean out-degree of internal nodes (Thm 2: 2) "
        "| publisher's share of copies | LBDD / point-to-point completion time |"
    )
    print("|---|---|---|---|---|")
    for n in (100, 200, 300, 400, 500):
        depths, degrees, shares, ratios = [], [], [], []
        for seed in range(a.seeds):
            rng = random.Random(f"lbdd-bench:{n}:{seed}")
            addrs = addresses(rng, n + 1)
            source, members = addrs[0], addrs[1:]
            tree = build_tree(source, members)
            depths.append(tree_depth(tree, source))
            internal = [len(k) for k in tree.values() if k]
            degrees.append(statistics.fmean(internal))
            shares.append(len(tree[source]) / n)
            if seed < 5:
                lbdd = over_tree(tree, source, 8e6, 64e3, 1.25e8)
                p2p = point_to_point(source, members, 8e6, 64e3, 1.25e8)
                ratios.append(lbdd.completion_s / p2p.completion_s)
        print(
            f"| {n} | {min(depths)}/{statistics.fmean(depths):.2f}/{max(depths)} "
            f"| {statistics.fmean(degrees):.2f} | {statistics.fmean(shares):.3f} "
            f"| {statistics.fmean(ratios):.3f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
