"""A FAULTY outside implementation, to show what the suite reports (conformance/PROTOCOL.md).

Standard library only. Matching is correct brute force; the fault is chosen with `--mode` or
the environment variable PUBSUB_FAULT (the flag wins), at the op given by `--at` or
PUBSUB_FAULT_AT (default 5; ops count from 1):

  none              behaves: a correct Python implementation
  drop              omits one delivery (the first of the third publish that has any)
  twice             sends one delivery twice (same publish)
  spurious          also delivers that publish to a subscription that does not match it
  hang              stops answering at op AT
  crash             exits with status 7 at op AT
  garbage           prints a line that is not JSON at op AT
  wrong-ack         acknowledges op AT with the wrong seq
  error-definite    answers op AT with an error that says it certainly did not happen
  error-indefinite  answers op AT with an error that says it may have happened
  chatty            writes 1 MiB to stderr at op AT, then behaves (must still pass)
  strict-only       announces only the strict feature (must be incomplete, not pass)

  python3 faulty.py --mode drop      or      PUBSUB_FAULT=drop python3 faulty.py
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

MODES = (
    "none", "drop", "twice", "spurious", "hang", "crash", "garbage", "wrong-ack",
    "error-definite", "error-indefinite", "chatty", "strict-only",
)  # fmt: skip


def out(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def matching(subs: dict[str, dict[str, Any]], event: dict[str, Any], strict: bool) -> list[str]:
    values = event["values"]
    return [
        sid
        for sid, s in sorted(subs.items())
        if s["schema"] == event["schema"]
        and all(
            (a in values and lo <= values[a] <= hi) or (a not in values and not strict)
            for a, (lo, hi) in s["predicates"].items()
        )
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--mode", choices=MODES, default=os.environ.get("PUBSUB_FAULT", "none"))
    ap.add_argument("--at", type=int, default=int(os.environ.get("PUBSUB_FAULT_AT", "5")))
    args = ap.parse_args(argv)
    mode, at = args.mode, args.at
    if mode not in MODES:
        ap.error(f"unknown mode {mode!r}")
    subs: dict[str, dict[str, Any]] = {}
    strict = True
    ops = publishes_with_hits = 0
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "init":
            strict = m["semantics"]["matching"] != "lenient"
            feats = ["strict", "lenient", "churn", "multi-schema"]
            if mode == "strict-only":  # opts out of most of the exam (feature policy)
                feats = ["strict"]
            out({"type": "init_ok", "features": feats, "name": f"faulty-{mode}"})
            continue
        if m["type"] == "end":
            out({"type": "end_ok"})
            return 0
        ops += 1
        seq = m["seq"]
        if ops == at:
            if mode == "hang":
                time.sleep(3600)
            if mode == "crash":
                print(f"faulty: crashing on purpose at op seq {seq}", file=sys.stderr)
                return 7
            if mode == "garbage":
                print("this is not json", flush=True)
            if mode == "chatty":
                sys.stderr.write(("x" * 1023 + "\n") * 1024)
                sys.stderr.flush()
            if mode.startswith("error-"):
                definite = mode == "error-definite"
                out({"type": "error", "seq": seq, "code": "abort" if definite else "timeout",
                     "definite": definite, "text": "faulty on purpose"})  # fmt: skip
                continue
            if mode == "wrong-ack":
                out({"type": "ack", "seq": seq + 1000})
                continue
        op = m["op"]
        if op == "subscribe":
            subs[m["id"]] = m
        elif op == "unsubscribe":
            subs.pop(m["id"], None)
        elif op in ("leave", "fail"):
            gone = {m.get("node")} | set(m.get("nodes", []))
            for sid in [s for s, x in subs.items() if x["subscriber"] in gone]:
                del subs[sid]
        elif op == "publish":
            hits = matching(subs, m, strict)
            if hits:
                publishes_with_hits += 1
            faulty_here = publishes_with_hits == 3 and bool(hits)
            for i, sid in enumerate(hits):
                if mode == "drop" and faulty_here and i == 0:
                    continue
                out({"type": "deliver", "event": m["id"], "sub": sid})
                if mode == "twice" and faulty_here and i == 0:
                    out({"type": "deliver", "event": m["id"], "sub": sid})
            if mode == "spurious" and faulty_here:
                misses = sorted(set(subs) - set(hits)) or ["never-subscribed"]
                out({"type": "deliver", "event": m["id"], "sub": misses[0]})
        out({"type": "ack", "seq": seq})
    return 0


if __name__ == "__main__":
    sys.exit(main())
