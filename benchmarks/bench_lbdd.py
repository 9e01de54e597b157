"""LBDD's measured properties next to the paper's (LBDD: Tab. 1 depth 5–9 for 100–500
subscribers; Theorem 2: mean out-degree 2; the publisher sends a small, nearly constant number
of copies (Fig. 4); LBDD distributes faster than point to point (§4.2: 3 020 s vs 7 810 s on
the 12-PC test bed)). Random IPv4 addresses, many seeds, every draw from a seeded generator.

Run: python -m benchmarks.bench_lbdd [--seeds N] [--transfer-seeds N]
"""

from __future__ import annotations

import argparse
import random
import statistics

from pubsub_spec.reference.lbdd.algorithms import build_tree, tree_depth
from pubsub_spec.reference.lbdd.transfer import over_tree, point_to_point, random_uploads

PAYLOAD = 8e6  # bytes; the paper sends 8 GB, the ratio of completion times does not depend on it
SLICE = 64e3  # the paper's 64 KB slices
GIGABIT = 1.25e8  # bytes/s: the test bed's gigabit Ethernet
TESTBED = [f"10.3.17.{h}" for h in (74, 97, 234, 90, 98, 64, 61, 184, 72, 88, 44, 68)]
PAPER_TESTBED_RATIO = 3020 / 7810


def addresses(rng: random.Random, n: int) -> list[str]:
    out: set[str] = set()
    while len(out) < n:
        out.add(".".join(str(rng.randrange(1, 255)) for _ in range(4)))
    return sorted(out)


def ratio(source: str, members: list[str], upload: float | dict[str, float]) -> float:
    tree = build_tree(source, members)
    lbdd = over_tree(tree, source, PAYLOAD, SLICE, upload)
    p2p = point_to_point(source, members, PAYLOAD, SLICE, upload)
    return lbdd.completion_s / p2p.completion_s


def testbed() -> None:
    source, members = TESTBED[0], TESTBED[1:]
    tree = build_tree(source, members)
    print(
        f"12-PC test bed (10.3.17.*, publisher .74): depth {tree_depth(tree, source)}, "
        f"publisher sends {len(tree[source])} of {len(members)} copies, "
        f"LBDD / point-to-point completion {ratio(source, members, GIGABIT):.3f} "
        f"(paper: 3020 s / 7810 s = {PAPER_TESTBED_RATIO:.3f})"
    )


def row(n: int, seeds: int, transfer_seeds: int) -> str:
    depths: list[int] = []
    degrees: list[float] = []
    shares: list[float] = []
    same: list[float] = []
    mixed: list[float] = []
    for seed in range(seeds):
        rng = random.Random(f"lbdd-bench:{n}:{seed}")
        addrs = addresses(rng, n + 1)
        source, members = addrs[0], addrs[1:]
        tree = build_tree(source, members)
        depths.append(tree_depth(tree, source))
        degrees.append(statistics.fmean([len(k) for k in tree.values() if k]))
        shares.append(len(tree[source]) / n)
        if seed < transfer_seeds:
            same.append(ratio(source, members, GIGABIT))
            mixed.append(ratio(source, members, random_uploads(addrs, rng, 1e7, GIGABIT)))
    return (
        f"| {n} | {min(depths)}/{statistics.fmean(depths):.2f}/{max(depths)} "
        f"| {statistics.fmean(degrees):.2f} | {statistics.fmean(shares):.4f} "
        f"| {statistics.fmean(same):.4f} | {statistics.fmean(mixed):.4f} |"
    )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--seeds", type=int, default=100)
    p.add_argument("--transfer-seeds", type=int, default=5)
    a = p.parse_args()
    testbed()
    print()
    print(
        "| n | depth min/mean/max (paper Tab. 1: 5–9) "
        "| mean out-degree of internal nodes (Thm 2: 2) | publisher's share of copies "
        "| LBDD / p2p completion, equal uploads | same, uploads 10 MB/s–1 Gbit/s |"
    )
    print("|---|---|---|---|---|---|")
    for n in (100, 200, 300, 400, 500):
        print(row(n, a.seeds, a.transfer_seeds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
