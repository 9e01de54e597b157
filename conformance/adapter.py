"""Driving an outside implementation over NDJSON on stdin/stdout (conformance/PROTOCOL.md).

The suite starts the program once per trace, sends `init` (the trace header), then each op,
waiting for its `ack`, then `end`; it collects the deliveries written on the way. Every way a
program can misbehave becomes an outcome that names the op (seq, kind, trace line) or the
output line, and never stops the rest of a run:

| what happens | outcome |
|---|---|
| cannot be started | fail (start) |
| exits or closes stdout before answering | fail (crash), with the exit status and the op |
| no answer within the per-op or the overall timeout | unknown (timeout), naming the op |
| a line that is not a protocol reply, or the wrong reply | fail (protocol), naming the line |
| `error` with `definite: true` for a valid op | fail (error): it must perform every op |
| `error` with `definite: false` | unknown (error): the op may have happened |
| `init_ok` lacks a feature the trace needs | skipped (feature) |

The program runs in its own process group; whatever is left of it at the end is killed. Its
stderr is drained all along (a chatty program cannot block) and the last line is quoted.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import shlex
import signal
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass

from conformance import protocol
from conformance.protocol import Ack, Deliver, EndOk, Error, InitOk, ProtocolError
from conformance.traceio import trace_to_lines
from reference.ops import Fail, Join, Leave, Trace
from reference.oracle import Delivery

FEATURES = protocol.FEATURES
_ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class AdapterOutcome:
    deliveries: list[Delivery]
    verdict: str  # "ok" | "fail" | "unknown" | "skipped"
    reason: str = ""
    kind: str = ""  # "" | start | crash | timeout | protocol | error | feature
    seq: int | None = None  # the op it happened at, if any
    name: str = ""  # what the implementation calls itself in init_ok


def required_features(trace: Trace) -> set[str]:
    churn = any(isinstance(op, Join | Leave | Fail) for op in trace.ops)
    return protocol.required_features(trace.matching, len(trace.schemas), churn)


def split_command(command: str) -> tuple[list[str], dict[str, str]]:
    """A command line as the shell would split it; leading `NAME=value` words set the
    environment of the program (e.g. `FAULT=drop python3 faulty.py`)."""
    words = shlex.split(command)
    env: dict[str, str] = {}
    while words and _ENV_ASSIGNMENT.match(words[0]):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    if not words:
        raise ValueError(f"no program in command {command!r}")
    return words, env


class OutsideProcess:
    """One run of the program: lines of stdout through a queue, stderr drained to a tail."""

    def __init__(self, command: str) -> None:
        argv, env = split_command(command)
        self.p = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **env},
            start_new_session=True,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.line_no = 0
        self.stderr_tail: deque[str] = deque(maxlen=5)
        self._out = threading.Thread(target=self._pump_out, daemon=True)
        self._err = threading.Thread(target=self._pump_err, daemon=True)
        self._out.start()
        self._err.start()

    def _pump_out(self) -> None:
        assert self.p.stdout is not None
        while True:
            line = self.p.stdout.readline(protocol.MAX_LINE_CHARS + 1)
            if not line:
                break
            self.lines.put(line)
        self.lines.put(None)

    def _pump_err(self) -> None:
        assert self.p.stderr is not None
        for raw in self.p.stderr:
            text = raw.decode("utf-8", "replace").strip()
            if text:
                self.stderr_tail.append(text[:200])

    def send(self, message: dict[str, object]) -> bool:
        try:
            assert self.p.stdin is not None
            self.p.stdin.write((protocol.encode(message) + "\n").encode())
            self.p.stdin.flush()
            return True
        except (BrokenPipeError, OSError, ValueError):
            return False

    def read(self, timeout: float) -> bytes | bool | None:
        """A line, None at end of output, False on timeout."""
        try:
            line = self.lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return False
        if line is not None:
            self.line_no += 1
        return line

    def exit_status(self, wait: float) -> int | None:
        try:
            return self.p.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return None

    def close(self, grace: float = 1.0) -> None:
        """Close stdin, give the program `grace` seconds to exit, then kill its group."""
        with contextlib.suppress(OSError, ValueError):
            if self.p.stdin:
                self.p.stdin.close()
        if self.exit_status(grace) is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait()
        self._err.join(timeout=1.0)
        for stream in (self.p.stdout, self.p.stderr):
            with contextlib.suppress(OSError, ValueError):
                if stream:
                    stream.close()

    def stderr_note(self) -> str:
        return f" (stderr: {self.stderr_tail[-1]})" if self.stderr_tail else ""


def _exit_words(code: int | None) -> str:
    if code is None:
        return "closed its output (still running)"
    if code < 0:
        try:
            return f"crashed (killed by {signal.Signals(-code).name})"
        except ValueError:
            return f"crashed (killed by signal {-code})"
    if code == 0:
        return "exited (status 0) without answering"
    return f"crashed (exit {code})"


class _Stop(Exception):
    def __init__(self, outcome: AdapterOutcome) -> None:
        self.outcome = outcome


def run_outside(
    command: str,
    trace: Trace,
    op_timeout: float = 5.0,
    total_timeout: float = 120.0,
    init_timeout: float | None = None,
) -> AdapterOutcome:
    """Run one trace through the program `command`; never raises for anything it does."""
    lines = trace_to_lines(trace)
    header = json.loads(lines[0])
    try:
        proc = OutsideProcess(command)
    except (OSError, ValueError) as e:
        return AdapterOutcome([], "fail", f"cannot start {command!r}: {e}", "start")
    started = time.monotonic()
    deadline = started + total_timeout
    got: list[Delivery] = []
    name = ""

    def stop(verdict: str, reason: str, kind: str, seq: int | None) -> _Stop:
        return _Stop(AdapterOutcome(got, verdict, reason, kind, seq, name))

    def await_reply(expect: type, what: str, seq: int | None, timeout: float) -> object:
        op_deadline = time.monotonic() + timeout
        while True:
            line = proc.read(min(op_deadline, deadline) - time.monotonic())
            if line is False:
                if time.monotonic() >= deadline - 1e-3:
                    words = f"overall timeout of {total_timeout:g}s reached"
                else:
                    words = f"timeout after {timeout:g}s"
                raise stop("unknown", f"{words} waiting for {what}", "timeout", seq)
            if line is None:
                words = _exit_words(proc.exit_status(2.0))
                raise stop("fail", f"{words} during {what}", "crash", seq)
            assert isinstance(line, bytes)
            at = f"protocol error at output line {proc.line_no} (while waiting for {what})"
            try:
                reply = protocol.parse_reply(line.decode("utf-8"))
            except UnicodeDecodeError:
                raise stop("fail", f"{at}: not UTF-8: {line[:60]!r}", "protocol", seq) from None
            except ProtocolError as e:
                raise stop("fail", f"{at}: {e}", "protocol", seq) from None
            if isinstance(reply, Deliver) and expect is not InitOk:
                got.append(Delivery(reply.event, reply.sub))
                continue
            if isinstance(reply, Error) and expect is Ack and reply.seq == seq:
                verdict = "fail" if reply.definite else "unknown"
                raise stop(verdict, f"error for {what}: {reply.describe()}", "error", seq)
            if isinstance(reply, expect) and (not isinstance(reply, Ack) or reply.seq == seq):
                return reply
            wire = json.dumps(protocol.reply_to_json(reply))
            raise stop("fail", f"{at}: unexpected reply {wire}", "protocol", seq)

    try:
        proc.send(protocol.init_request(header))  # if it died at once, reading says so
        init_wait = init_timeout if init_timeout is not None else max(op_timeout, 10.0)
        init = await_reply(InitOk, "init", None, init_wait)
        assert isinstance(init, InitOk)
        name = init.name
        missing = required_features(trace) - set(init.features)
        if missing:
            need = ", ".join(sorted(missing))
            raise stop("skipped", f"does not support {need} (init_ok features)", "feature", None)
        for index, text in enumerate(lines[1:]):
            op = json.loads(text)
            seq = int(op["seq"])
            proc.send(protocol.op_request(op))
            await_reply(Ack, f"op seq {seq} ({op['op']}, trace line {index + 2})", seq, op_timeout)
        proc.send(protocol.end_request())
        await_reply(EndOk, "end", None, op_timeout)
        outcome = AdapterOutcome(got, "ok", "", "", None, name)
    except _Stop as s:
        outcome = s.outcome
    proc.close()
    if outcome.verdict != "ok":
        outcome = AdapterOutcome(
            outcome.deliveries,
            outcome.verdict,
            outcome.reason + proc.stderr_note(),
            outcome.kind,
            outcome.seq,
            outcome.name,
        )
    return outcome
