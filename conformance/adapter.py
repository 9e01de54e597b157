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
| does not read a request within the write timeout | unknown (timeout), naming the op |
| output beyond the line-length limit | fail (protocol), naming the line |
| more lines per op, or more bytes in all, than the limits | fail (output-limit) |
| a line that is not a protocol reply, or the wrong reply | fail (protocol), naming the line |
| `error` with `definite: true` for a valid op | fail (error): it must perform every op |
| `error` with `definite: false` | unknown (error): the op may have happened |
| `init_ok` lacks a feature the trace needs | skipped (feature) |
| `init_ok` lacks `advertisements` | runs; advertisement ops and a publish's `adv` not sent |
| `obs` lines from a program that did not opt in to version 2 | fail (protocol), naming the line |
| more than MAX_OBSERVATIONS `obs` lines | runs; the rest not kept, `too_many_observations` set |

A version-2 program (`init_ok` with `protocol: 2` and `system`) has its `obs` lines collected,
in order, in `AdapterOutcome.observations` (conformance/OBSERVATIONS.md); they never change the
delivery verdict.

The program runs under `conformance/supervisor.py`: its own process group, killed whole at
the end, on every stop and on SIGINT/SIGTERM of the suite; non-blocking writes with a timeout;
bounded reads; stderr drained all along into a bounded tail, whose last line is quoted.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shlex
import signal
import subprocess
import time
from dataclasses import dataclass, field

from pubsub_spec.conformance import protocol
from pubsub_spec.conformance.protocol import Ack, Deliver, EndOk, Error, InitOk
from pubsub_spec.conformance.protocol_rules.base import Observed
from pubsub_spec.conformance.supervisor import (
    EOF,
    EXITED,
    TIMEOUT,
    TOO_LONG,
    TOO_MUCH,
    Limits,
    Supervised,
    describe_exit,
)
from pubsub_spec.conformance.traceio import trace_to_lines
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.sim.system import ADVERTISEMENTS, OPTIONAL_FEATURES, needed_features

FEATURES = protocol.FEATURES
ADVERTISEMENT_OPS = ("advertise", "unadvertise")
_ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class AdapterOutcome:
    deliveries: list[Delivery]
    verdict: str  # "ok" | "fail" | "unknown" | "skipped"
    reason: str = ""
    kind: str = ""  # "" | start | crash | timeout | protocol | error | feature
    seq: int | None = None  # the op it happened at, if any
    name: str = ""  # what the implementation calls itself in init_ok
    # version 2 (conformance/OBSERVATIONS.md): the protocol version it speaks, the system it
    # claims ("" for version 1), its observations in order, and whether it reported more than
    # protocol.MAX_OBSERVATIONS of them (the rest not kept)
    protocol: int = 1
    system: str = ""
    observations: list[Observed] = field(default_factory=list)
    too_many_observations: bool = False


def required_features(trace: Trace) -> set[str]:
    """The features the trace uses, optional ones (`advertisements`) included."""
    return set(needed_features(trace))


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


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


class _Stop(Exception):
    def __init__(self, outcome: AdapterOutcome) -> None:
        self.outcome = outcome


def run_outside(
    command: str,
    trace: Trace,
    op_timeout: float = 5.0,
    total_timeout: float = 120.0,
    init_timeout: float | None = None,
    limits: Limits | None = None,
) -> AdapterOutcome:
    """Run one trace through the program `command` under `limits` (conformance/supervisor.py;
    by default the timeouts given here and the supervisor's other defaults). Never raises for
    anything the program does; the program's whole process group is gone when it returns."""
    if limits is None:
        limits = Limits(op_timeout=op_timeout, total_timeout=total_timeout,
                        init_timeout=init_timeout)  # fmt: skip
    lines = trace_to_lines(trace)
    header = json.loads(lines[0])
    try:
        argv, env = split_command(command)
        proc = Supervised(argv, {**os.environ, **env}, limits)
    except (OSError, ValueError, subprocess.SubprocessError) as e:
        return AdapterOutcome([], "fail", f"cannot start {command!r}: {e}", "start")
    deadline = time.monotonic() + limits.total_timeout
    got: list[Delivery] = []
    name = ""
    claim = InitOk(())  # version 1 until init_ok says otherwise
    observed: list[Observed] = []
    too_many = False

    def outcome_of(verdict: str, reason: str, kind: str, seq: int | None) -> AdapterOutcome:
        return AdapterOutcome(got, verdict, reason, kind, seq, name, claim.protocol,
                              claim.system, observed, too_many)  # fmt: skip

    def stop(verdict: str, reason: str, kind: str, seq: int | None) -> _Stop:
        return _Stop(outcome_of(verdict, reason, kind, seq))

    def timed_out(what: str, seq: int | None, timeout: float, doing: str = "waiting for") -> _Stop:
        if time.monotonic() >= deadline - 1e-3:
            words = f"overall timeout of {limits.total_timeout:g}s reached"
        else:
            words = f"timeout after {timeout:g}s"
        note = " (the program does not read its input)" if doing == "sending" else ""
        return stop("unknown", f"{words} {doing} {what}{note}", "timeout", seq)

    def send(message: dict[str, object], what: str, seq: int | None) -> None:
        data = (protocol.encode(message) + "\n").encode()
        wait = limits.write_wait
        result = proc.send(data, min(time.monotonic() + wait, deadline))
        if result == TIMEOUT:  # it does not read its stdin
            raise timed_out(what, seq, wait, "sending")
        # EOF: it closed stdin or exited; reading its output says which

    def await_reply(expect: type, what: str, seq: int | None, timeout: float) -> object:
        nonlocal too_many
        op_deadline = min(time.monotonic() + timeout, deadline)
        count = 0
        while True:
            line = proc.read_line(op_deadline)
            if line == TIMEOUT:
                raise timed_out(what, seq, timeout)
            if line in (EOF, EXITED):
                code = proc.wait_exit(2.0)
                words = describe_exit(code, limits)
                if code == -signal.SIGXCPU and limits.cpu_seconds is not None:
                    raise stop("unknown", f"{words} during {what}", "timeout", seq)
                if line == EXITED:
                    words += " (a child of it keeps its output open)"
                raise stop("fail", f"{words} during {what}", "crash", seq)
            if line == TOO_LONG:
                raise stop(
                    "fail",
                    f"output line {proc.line_no + 1} is longer than {limits.max_line_bytes} "
                    f"bytes (while waiting for {what})", "protocol", seq,
                )  # fmt: skip
            if line == TOO_MUCH:
                raise stop(
                    "fail", f"more than {limits.max_total_bytes} bytes of output "
                    f"(while waiting for {what})", "output-limit", seq,
                )  # fmt: skip
            assert isinstance(line, bytes)
            count += 1
            if count > limits.max_lines_per_op:
                raise stop(
                    "fail", f"more than {limits.max_lines_per_op} output lines while waiting "
                    f"for {what}", "output-limit", seq,
                )  # fmt: skip
            at = f"protocol error at output line {proc.line_no} (while waiting for {what})"
            try:
                reply = protocol.parse_reply(line.decode("utf-8"))
            except UnicodeDecodeError:
                raise stop("fail", f"{at}: not UTF-8: {line[:60]!r}", "protocol", seq) from None
            except (ValueError, RecursionError, OverflowError) as e:
                # ProtocolError; also what json raises on a huge integer literal or deep nesting
                raise stop("fail", f"{at}: {_short(str(e))}", "protocol", seq) from None
            if isinstance(reply, Deliver) and expect is not InitOk:
                got.append(Delivery(reply.event, reply.sub))
                continue
            if isinstance(reply, Observed) and expect is not InitOk and claim.protocol == 2:
                if len(observed) < protocol.MAX_OBSERVATIONS:
                    observed.append(reply)
                else:
                    too_many = True
                continue
            if isinstance(reply, Observed) and expect is not InitOk:
                raise stop("fail", f"{at}: an 'obs' line from a program that did not opt in to "
                           "protocol version 2 (init_ok 'protocol': 2 and 'system')",
                           "protocol", seq)  # fmt: skip
            if isinstance(reply, Error) and expect is Ack and reply.seq == seq:
                verdict = "fail" if reply.definite else "unknown"
                text = _short(reply.describe())
                raise stop(verdict, f"error for {what}: {text}", "error", seq)
            if isinstance(reply, expect) and (not isinstance(reply, Ack) or reply.seq == seq):
                return reply
            wire = _short(json.dumps(protocol.reply_to_json(reply)))
            raise stop("fail", f"{at}: unexpected reply {wire}", "protocol", seq)

    outcome: AdapterOutcome | None = None
    try:
        send(protocol.init_request(header), "init", None)
        init = await_reply(InitOk, "init", None, limits.init_wait)
        assert isinstance(init, InitOk)
        name = _short(init.name, 100)
        claim = init
        missing = required_features(trace) - set(init.features) - OPTIONAL_FEATURES
        if missing:
            need = ", ".join(sorted(missing))
            raise stop("skipped", f"does not support {need} (init_ok features)", "feature", None)
        adverts = ADVERTISEMENTS in init.features
        for index, text in enumerate(lines[1:]):
            op = json.loads(text)
            if not adverts:  # PROTOCOL.md "Features": advertisement ops only to who lists them
                if op["op"] in ADVERTISEMENT_OPS:
                    continue
                op.pop("adv", None)
            seq = int(op["seq"])
            what = f"op seq {seq} ({op['op']}, trace line {index + 2})"
            send(protocol.op_request(op), what, seq)
            await_reply(Ack, what, seq, limits.op_timeout)
        send(protocol.end_request(), "end", None)
        await_reply(EndOk, "end", None, limits.op_timeout)
        outcome = outcome_of("ok", "", "", None)
    except _Stop as s:
        outcome = s.outcome
    finally:
        proc.close()  # also on KeyboardInterrupt: the group never outlives the run
    if outcome.verdict != "ok":
        last = proc.stderr_last_line()
        outcome = dataclasses.replace(
            outcome, reason=outcome.reason + (f" (stderr: {last})" if last else "")
        )
    return outcome
