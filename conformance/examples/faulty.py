"""A FAULTY outside implementation, to show what the suite reports. Correct brute-force
matching, broken on purpose by --mode:
  drop     omits one delivery (the first one of the third publish that has any)
  twice    sends one delivery twice
  hang     stops answering at the fifth op
  crash    exits at the fifth op
  garbage  prints a line that is not JSON at the fifth op
  none     behaves (a correct Python implementation)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any


def out(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="none")
    mode = ap.parse_args().mode
    subs: dict[str, dict[str, Any]] = {}
    strict = True
    ops = publishes_with_hits = 0
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "init":
            strict = m["semantics"]["matching"] != "lenient"
            out({"type": "init_ok", "features": ["strict", "lenient", "churn", "multi-schema"]})
            continue
        if m["type"] == "end":
            out({"type": "end_ok"})
            return 0
        ops += 1
        if ops == 5 and mode == "hang":
            time.sleep(3600)
        if ops == 5 and mode == "crash":
            sys.exit(7)
        if ops == 5 and mode == "garbage":
            print("this is not json")
            sys.stdout.flush()
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
            hits = [
                sid
                for sid, s in sorted(subs.items())
                if s["schema"] == m["schema"]
                and all(
                    (a not in m["values"] and not strict)
                    or (a in m["values"] and lo <= m["values"][a] <= hi)
                    for a, (lo, hi) in s["predicates"].items()
                )
            ]
            if hits:
                publishes_with_hits += 1
            for i, sid in enumerate(hits):
                if mode == "drop" and publishes_with_hits == 3 and i == 0:
                    continue
                out({"type": "deliver", "event": m["id"], "sub": sid})
                if mode == "twice" and publishes_with_hits == 3 and i == 0:
                    out({"type": "deliver", "event": m["id"], "sub": sid})
        out({"type": "ack", "seq": m["seq"]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
