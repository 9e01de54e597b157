"""Built-in implementations under the same limits as outside programs.

A built-in runs in a forked child in its own process group: a pathological but valid trace
(a huge `max_depth`, say) then ends as `unknown (timeout)` after the total timeout instead of
stopping the batch, and memory/CPU rlimits apply to it as they do to an outside program.
Fork (not spawn) keeps what the parent registered (`conformance.impls.register`) and costs no
imports. The child sends back its deliveries as JSON (bounded by `max_total_bytes`) on a pipe
the parent reads while it waits, so a large result cannot deadlock the two.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass

from pubsub_spec.conformance.lifeline import die_with_parent, ensure_watchdog, load_libc
from pubsub_spec.conformance.limits import memory_limit, set_memory_limit
from pubsub_spec.conformance.supervisor import (
    Limits,
    register_live,
    reset_in_child,
    rlimits,
    unregister_live,
)
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.common.oracle import Delivery

Runner = Callable[[Trace], list[Delivery]]


@dataclass(frozen=True)
class Isolated:
    """How a built-in's run ended: `ok` (deliveries), `crash` (an exception, named), `timeout`,
    `resource` (a memory limit), or `killed` (a signal, named)."""

    status: str
    deliveries: list[Delivery]
    reason: str = ""
    seconds: float = 0.0


class _Child:
    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.reaped = False

    def kill_group(self) -> None:
        if not self.reaped:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)


def _crash_words(e: BaseException) -> str:
    where = traceback.format_exc(limit=-1).strip().splitlines()
    at = next((w.strip() for w in reversed(where) if w.strip().startswith("File ")), "")
    return f"crashed: {e!r}"[:500] + (f" ({at})" if at else "")


def _child(run: Runner, trace: Trace, limits: Limits, w: int) -> None:
    """In the child: run, write the JSON result, exit without running the parent's cleanup."""
    code = 0
    try:
        reset_in_child()
        apply = rlimits(limits.memory_bytes, limits.cpu_seconds)
        if apply is not None:
            apply()
        if limits.memory_bytes is None:  # the default limit (conformance/limits.py)
            with contextlib.suppress(ValueError, OSError):
                set_memory_limit(memory_limit())
        try:
            got = run(trace)
            result: dict[str, object] = {
                "status": "ok", "pairs": [[d.event_id, d.sub_id] for d in got],
            }  # fmt: skip
        except MemoryError:
            result = {"status": "resource", "reason": "out of memory (MemoryError)"}
        except RecursionError as e:
            result = {"status": "crash", "reason": _crash_words(e)}
        except Exception as e:  # an implementation that crashes fails, naming the error
            result = {"status": "crash", "reason": _crash_words(e)}
        data = json.dumps(result, separators=(",", ":")).encode()
        view = memoryview(data)
        while view:
            view = view[os.write(w, view) :]
    except BaseException:  # nothing may escape a forked child
        code = 3
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def run_isolated(run: Runner, trace: Trace, limits: Limits, wall_bound: bool = True) -> Isolated:
    """`run(trace)` in a forked child, under `limits.total_timeout` and the rlimits; the
    child's group is killed at the end whatever happened. `wall_bound=False` drops the total
    timeout (the rlimits and the result's size bound stay): a run at scale gives a built-in
    only generated traces, whose ops bound its work, so that its verdict never depends on how
    fast or how loaded the machine is (docs/conformance.md, "At scale")."""
    start = time.monotonic()
    deadline = start + limits.total_timeout if wall_bound else float("inf")
    r, w = os.pipe()
    parent = os.getpid()
    load_libc()
    ensure_watchdog()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        die_with_parent(parent)  # even if the runner is SIGKILLed (conformance/lifeline.py)
        os.close(r)
        with contextlib.suppress(OSError):
            os.setpgid(0, 0)
        _child(run, trace, limits, w)
    os.close(w)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)  # both sides set it: no race with an early kill
    child = _Child(pid)
    register_live(pid, child)
    chunks: list[bytes] = []
    size = 0
    status = ""
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                status = "timeout"
                break
            ready, _, _ = select.select([r], [], [], min(left, 0.5))
            if not ready:
                continue
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            size += len(chunk)
            if size > limits.max_total_bytes:
                status = "too-much"
                break
            chunks.append(chunk)
    finally:
        child.kill_group()  # the child is unreaped until waitpid below: the pgid is its own
        _, code = os.waitpid(pid, 0)
        child.reaped = True
        unregister_live(pid)
        os.close(r)
    secs = time.monotonic() - start
    if status == "timeout":
        why = f"did not finish within the total timeout of {limits.total_timeout:g}s"
        return Isolated("timeout", [], why, secs)
    if status == "too-much":
        return Isolated("resource", [], f"result larger than {limits.max_total_bytes} bytes", secs)
    try:
        result = json.loads(b"".join(chunks))
    except ValueError:
        result = None
    if isinstance(result, dict) and result.get("status") == "ok":
        pairs = result["pairs"]
        return Isolated("ok", [Delivery(e, s) for e, s in pairs], "", secs)
    if isinstance(result, dict):
        return Isolated(str(result["status"]), [], str(result.get("reason", "")), secs)
    if os.WIFSIGNALED(code):
        sig = os.WTERMSIG(code)
        name = signal.Signals(sig).name if sig in signal.valid_signals() else str(sig)
        if sig == signal.SIGXCPU:
            return Isolated("timeout", [], f"CPU limit of {limits.cpu_seconds}s reached", secs)
        return Isolated("killed", [], f"killed by {name}", secs)
    return Isolated("killed", [], f"worker exited with status {os.waitstatus_to_exitcode(code)}",
                    secs)  # fmt: skip
