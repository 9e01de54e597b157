"""The step runner of `pubsub-spec verify --steps` (docs/steps.md; PROTOCOL.md, "Steps").

An implementation is either built in (the reference's handlers, in this process, or a variant
of them) or a program that speaks the steps dialogue of the process protocol: `init` with
`mode: steps`, an `init_ok` naming the handlers it supports per system, then one `step` per
vector (`pre` and `input` in) answered by one `step_ok` (`post` and `sends`, or `invalid`),
and `end`. Each vector is `pass`, `fail` (with the first differing field, a JSON path, or what
went wrong) or `unsupported` (a handler the implementation does not list); the report gives
each handler's counts and its first failure.
"""

from __future__ import annotations

import os
import queue
import subprocess
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pubsub_spec.conformance.adapter import split_command
from pubsub_spec.conformance.protocol import (
    EndOk,
    ProtocolError,
    StepOk,
    StepsInitOk,
    encode,
    end_request,
    parse_step_reply,
    step_request,
    steps_init_request,
)
from pubsub_spec.conformance.steps.base import Outcome, StepInputError, StepSystem
from pubsub_spec.conformance.steps.vectors import Vector, judge

Status = Literal["pass", "fail", "unsupported"]


@dataclass(frozen=True)
class StepResult:
    vector: Vector
    status: Status
    detail: str = ""  # fail: the first differing field (JSON path) or what went wrong


class StepImpl:
    """What the runner needs of an implementation."""

    name = ""

    def start(self, systems: Sequence[str]) -> Mapping[str, tuple[str, ...]]:
        """Start; the handlers supported per system."""
        raise NotImplementedError

    def step(self, v: Vector) -> Outcome:
        """One vector's outcome; raises `StepFailure` when the implementation misbehaves."""
        raise NotImplementedError

    def close(self) -> None:
        return None


class StepFailure(Exception):
    """The implementation did not answer a step properly (the message says how)."""


class Builtin(StepImpl):
    """Handlers run in this process: the reference's (`systems()`), or the given ones."""

    def __init__(self, name: str, systems: Mapping[str, StepSystem]) -> None:
        self.name = name
        self.systems = systems

    def start(self, systems: Sequence[str]) -> Mapping[str, tuple[str, ...]]:
        return {n: tuple(h.name for h in s.handlers) for n, s in self.systems.items()}

    def step(self, v: Vector) -> Outcome:
        try:
            return self.systems[v.system].apply(v.pre, v.input)
        except StepInputError as e:
            raise StepFailure(f"the built-in could not read the vector: {e}") from None


class Program(StepImpl):
    """An outside program speaking the steps dialogue on stdin/stdout."""

    def __init__(self, command: str, timeout: float = 10.0) -> None:
        self.name = f"cmd:{command}"
        self.command = command
        self.timeout = timeout
        self.proc: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()

    def start(self, systems: Sequence[str]) -> Mapping[str, tuple[str, ...]]:
        argv, env = split_command(self.command)
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True, env={**os.environ, **env}, start_new_session=True,
            )  # fmt: skip
        except OSError as e:
            raise StepFailure(f"cannot start {self.command!r}: {e}") from None
        threading.Thread(target=self._read, daemon=True).start()
        self._send(steps_init_request(list(systems)))
        reply = self._reply("init_ok")
        if not isinstance(reply, StepsInitOk):
            raise StepFailure("expected init_ok with 'steps'")
        return reply.steps

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _send(self, message: Mapping[str, object]) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(encode(message) + "\n")
            self.proc.stdin.flush()
        except OSError as e:
            raise StepFailure(f"the program stopped reading its input ({e})") from None

    def _reply(self, what: str) -> StepsInitOk | StepOk | EndOk:
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise StepFailure(f"no {what} within {self.timeout:g} s") from None
            if line is None:
                code = self.proc.wait() if self.proc is not None else None
                raise StepFailure(f"the program exited (status {code}) before its {what}")
            if line.strip():
                try:
                    return parse_step_reply(line)
                except ProtocolError as e:
                    raise StepFailure(f"bad reply instead of {what}: {e}") from None

    def step(self, v: Vector) -> Outcome:
        self._send(step_request(v.id, v.system, v.handler, v.pre, v.input))
        reply = self._reply(f"step_ok of {v.id}")
        if not isinstance(reply, StepOk) or reply.id != v.id:
            raise StepFailure(f"expected step_ok of {v.id}")
        if reply.invalid is not None:
            return Outcome(invalid=reply.invalid)
        return Outcome(reply.post, reply.sends)

    def close(self) -> None:
        if self.proc is None:
            return
        self.timeout = min(self.timeout, 2.0)  # a program that does not end is stopped soon
        try:
            self._send(end_request())
            if self.proc.stdin is not None:
                self.proc.stdin.close()  # then a program that ignores `end` sees the end
            self._reply("end_ok")
        except (StepFailure, OSError):
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def run_steps(impl: StepImpl, vectors: Sequence[Vector]) -> list[StepResult]:
    """Every vector's result, in order; after the implementation breaks down, the vectors left
    fail with the reason."""
    systems = sorted({v.system for v in vectors})
    out: list[StepResult] = []
    broken = ""
    try:
        supported = impl.start(systems)
    except StepFailure as e:
        supported, broken = {}, str(e)
    try:
        for v in vectors:
            if v.handler not in supported.get(v.system, ()) and not (broken and not supported):
                out.append(StepResult(v, "unsupported"))
                continue
            if broken:
                out.append(StepResult(v, "fail", f"not run: {broken}"))
                continue
            try:
                got = impl.step(v)
            except StepFailure as e:
                broken = str(e)
                out.append(StepResult(v, "fail", broken))
                continue
            where = judge(v.expected, got)
            out.append(StepResult(v, "pass" if where is None else "fail", where or ""))
    finally:
        impl.close()
    return out


@dataclass(frozen=True)
class HandlerSummary:
    system: str
    handler: str
    passed: int
    failed: int
    unsupported: int
    first_failure: StepResult | None

    @property
    def verdict(self) -> str:
        if self.failed:
            return "fail"
        return "unsupported" if not self.passed else "pass"

    def describe(self) -> str:
        total = self.passed + self.failed + self.unsupported
        if self.verdict == "unsupported":
            return f"unsupported ({total} vectors)"
        line = f"{self.verdict} ({self.passed}/{total} pass)"
        f = self.first_failure
        if f is not None:
            line += f"; first failure {f.vector.case}: {f.detail}"
        return line


def summarize(results: Iterable[StepResult]) -> list[HandlerSummary]:
    """One summary per (system, handler), in the order of the results."""
    groups: dict[tuple[str, str], list[StepResult]] = {}
    for r in results:
        groups.setdefault((r.vector.system, r.vector.handler), []).append(r)
    out = []
    for (system, handler), rs in groups.items():
        fails = [r for r in rs if r.status == "fail"]
        out.append(HandlerSummary(
            system, handler, sum(r.status == "pass" for r in rs), len(fails),
            sum(r.status == "unsupported" for r in rs), fails[0] if fails else None,
        ))  # fmt: skip
    return out


def overall(summaries: Sequence[HandlerSummary]) -> str:
    """`pass` when no vector fails and some pass, `fail` when one fails, else `unsupported`."""
    if any(s.failed for s in summaries):
        return "fail"
    return "pass" if any(s.passed for s in summaries) else "unsupported"
