"""Driving an outside implementation over NDJSON on stdin/stdout (conformance/PROTOCOL.md).

The suite starts the program, sends `init` (trace header), then each op, then `end`; it reads
deliveries, acks and errors. Every way a program can misbehave becomes a verdict that names the
op or output line — it never stops the rest of the run: a crash (fail), a hang past the per-op
or overall timeout (unknown), output that is not protocol (fail), an error for an op (unknown
when the op may have happened, i.e. `definite: false`; fail when the program says it certainly
did not happen but the op was valid)."""

from __future__ import annotations

import json
import queue
import shlex
import subprocess
import threading
import time
from dataclasses import dataclass

from conformance.traceio import trace_to_lines
from reference.ops import Fail, Join, Leave, Trace
from reference.oracle import Delivery

FEATURES = ("strict", "lenient", "churn", "multi-schema")


@dataclass(frozen=True)
class AdapterOutcome:
    deliveries: list[Delivery]
    verdict: str  # "ok" | "fail" | "unknown" | "skipped"
    reason: str = ""


def required_features(trace: Trace) -> set[str]:
    need: set[str] = {trace.matching}
    if any(isinstance(op, Join | Leave | Fail) for op in trace.ops):
        need.add("churn")
    if len(trace.schemas) > 1:
        need.add("multi-schema")
    return need


class _Proc:
    def __init__(self, command: str) -> None:
        self.p = subprocess.Popen(
            shlex.split(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.count = 0
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, obj: dict[str, object]) -> bool:
        try:
            assert self.p.stdin is not None
            self.p.stdin.write(json.dumps(obj) + "\n")
            self.p.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def read(self, timeout: float) -> tuple[str, dict[str, object] | str | None]:
        """("msg", obj) | ("eof", None) | ("timeout", None) | ("garbage", text)."""
        try:
            line = self.lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return "timeout", None
        if line is None:
            return "eof", None
        self.count += 1
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            return "garbage", line.strip()[:80]
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            return "garbage", line.strip()[:80]
        return "msg", obj

    def close(self) -> str:
        try:
            if self.p.stdin:
                self.p.stdin.close()
        except OSError:
            pass
        try:
            self.p.wait(timeout=1)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        err = self.p.stderr.read() if self.p.stderr else ""
        return err.strip().splitlines()[-1][:120] if err.strip() else ""


def run_outside(
    command: str, trace: Trace, op_timeout: float = 5.0, total_timeout: float = 120.0
) -> AdapterOutcome:
    lines = trace_to_lines(trace)
    header = json.loads(lines[0])
    try:
        proc = _Proc(command)
    except OSError as e:
        return AdapterOutcome([], "fail", f"cannot start {command!r}: {e}")
    deadline = time.monotonic() + total_timeout
    got: list[Delivery] = []

    def finish(verdict: str, reason: str) -> AdapterOutcome:
        err = proc.close()
        return AdapterOutcome(got, verdict, reason + (f" (stderr: {err})" if err else ""))

    def await_reply(what: str, seq: int | None) -> AdapterOutcome | dict[str, object]:
        while True:
            left = min(op_timeout, deadline - time.monotonic())
            kind, obj = proc.read(left)
            if kind == "timeout":
                return finish("unknown", f"timeout after {op_timeout:g}s waiting for {what}")
            if kind == "eof":
                try:  # stdout closed: the exit status follows shortly
                    code: int | None = proc.p.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    code = None
                return finish("fail", f"crashed (exit {code}) during {what}")
            if kind == "garbage":
                return finish("fail", f"protocol error at output line {proc.count}: {obj!r}")
            assert isinstance(obj, dict)
            t = obj.get("type")
            if t == "deliver":
                got.append(Delivery(str(obj.get("event")), str(obj.get("sub"))))
                continue
            if t == "error" and seq is not None and obj.get("seq") == seq:
                definite = obj.get("definite") is True
                return finish(
                    "fail" if definite else "unknown",
                    f"error for {what}: code {obj.get('code')!r}, "
                    f"{'certainly did not happen' if definite else 'may have happened'}",
                )
            return obj

    if not proc.send(
        {"type": "init", **{k: header[k] for k in ("trace_id", "schemas", "semantics", "config")}}
    ):
        return finish("fail", "crashed before init")
    reply = await_reply("init", None)
    if isinstance(reply, AdapterOutcome):
        return reply
    if reply.get("type") != "init_ok":
        return finish("fail", f"protocol error at output line {proc.count}: expected init_ok")
    feats = reply.get("features", [])
    missing = required_features(trace) - set(feats if isinstance(feats, list) else [])
    if missing:
        return finish("skipped", f"does not support {', '.join(sorted(missing))}")
    for index, line in enumerate(lines[1:]):
        op = json.loads(line)
        seq = int(op["seq"])
        what = f"op seq {seq} ({op['op']}, trace line {index + 2})"
        if not proc.send({"type": "op", **op}):
            return finish("fail", f"crashed before {what}")
        reply = await_reply(what, seq)
        if isinstance(reply, AdapterOutcome):
            return reply
        if reply.get("type") != "ack" or reply.get("seq") != seq:
            return finish("fail", f"protocol error at output line {proc.count}: expected ack {seq}")
    proc.send({"type": "end"})
    reply = await_reply("end", None)
    if isinstance(reply, AdapterOutcome):
        return reply
    if reply.get("type") != "end_ok":
        return finish("fail", f"protocol error at output line {proc.count}: expected end_ok")
    return finish("ok", "")
