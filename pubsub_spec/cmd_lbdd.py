"""`pubsub-spec lbdd`: the LBDD dissemination tree (Li Kai et al., 2014) for a set of addresses,
as an indented text tree (bucket, digest, children) and optionally as an SVG picture."""

from __future__ import annotations

import argparse
import ipaddress
import random
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from xml.sax.saxutils import escape

from pubsub_spec.argtypes import int_range
from pubsub_spec.common_args import add_seed
from pubsub_spec.outputs import OutputProblem, check_file
from pubsub_spec.reference.lbdd.algorithms import bucket_no, build_tree, digest, tree_depth


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "addresses", nargs="*", type=address,
        help="IP addresses (v4 or v6): the publisher first, then the subscribers",
    )  # fmt: skip
    p.add_argument(  # 253^4 addresses exist; a million is a picture no one can read
        "--random", type=int_range(0, 1_000_000), default=0,
        help="N random IPv4 subscribers instead",
    )  # fmt: skip
    add_seed(p, 0)
    p.add_argument("--svg", default=None, help="also write the tree as an SVG picture")


def address(text: str) -> str:
    """An IPv4 or IPv6 address, kept as written (its digest is of the text: LBDD §3.2)."""
    try:
        ipaddress.ip_address(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an IP address: {text[:80]!r}") from None
    return text


def text_tree(tree: Mapping[str, Sequence[str]], source: str) -> list[str]:
    lines: list[str] = []

    def walk(node: str, indent: int) -> None:
        kids = tree.get(node, [])
        lines.append(
            f"{'  ' * indent}{node}  bucket {bucket_no(source, node)}  "
            f"digest {digest(node):08x}  children {len(kids)}"
        )
        for child in kids:
            walk(child, indent + 1)

    walk(source, 0)
    return lines


def svg_tree(tree: Mapping[str, Sequence[str]], source: str) -> str:
    """Nodes in columns by bucket (left to right: data flows one way), edges parent -> child."""
    buckets = sorted({bucket_no(source, n) for n in tree} | {0})
    column = {b: i for i, b in enumerate(buckets)}
    rows: dict[int, int] = {}
    pos: dict[str, tuple[int, int]] = {}
    order = [source]
    for node in order:
        b = bucket_no(source, node)
        rows[b] = rows.get(b, 0) + 1
        pos[node] = (60 + 150 * column[b], 30 + 22 * (rows[b] - 1))
        order.extend(tree.get(node, []))
    width = 150 * len(buckets) + 60
    height = 22 * max(rows.values()) + 60
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
        "font-family='sans-serif' font-size='10'>",
        "<rect width='100%' height='100%' fill='white'/>",
    ]
    for b, i in column.items():
        parts.append(f"<text x='{40 + 150 * i}' y='{height - 8}'>bucket {b}</text>")
    for parent, kids in tree.items():
        x1, y1 = pos[parent]
        for c in kids:
            x2, y2 = pos[c]
            parts.append(f"<line x1='{x1}' y1='{y1}' x2='{x2}' y2='{y2}' stroke='#8899aa'/>")
    for node, (x, y) in pos.items():
        colour = "#c62828" if node == source else "#1565c0"
        parts.append(f"<circle cx='{x}' cy='{y}' r='4' fill='{colour}'/>")
        parts.append(f"<text x='{x + 6}' y='{y + 3}'>{escape(node)}</text>")
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def run(args: argparse.Namespace) -> int:
    addrs = list(args.addresses)
    if args.random:
        rng = random.Random(args.seed)
        source = addrs[0] if addrs else "10.0.0.1"
        members: set[str] = set()
        while len(members) < args.random:
            members.add(".".join(str(rng.randrange(1, 255)) for _ in range(4)))
        addrs = [source, *sorted(members - {source})]
    if len(addrs) < 1:
        print("error: give addresses (publisher first) or --random N")
        return 2
    if args.svg:
        try:  # before the work: a path under a file or in a read-only folder is exit 2
            check_file(args.svg, "--svg")
        except OutputProblem as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    source, subscribers = addrs[0], addrs[1:]
    tree = build_tree(source, subscribers)
    for line in text_tree(tree, source):
        print(line)
    print(f"{len(subscribers)} subscribers, depth {tree_depth(tree, source)}")
    if args.svg:
        Path(args.svg).parent.mkdir(parents=True, exist_ok=True)
        Path(args.svg).write_text(svg_tree(tree, source), encoding="utf-8")
        print(f"picture written to {args.svg}")
    return 0
