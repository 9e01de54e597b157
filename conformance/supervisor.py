"""A process supervisor for implementations under test: whatever the program does,
the suite's time and memory stay bounded and nothing it started survives.

- The program runs in its own session, hence its own process group (pgid = its pid). At the
  end (`close`), on every timeout and when the suite gets SIGINT/SIGTERM, the whole group is
  killed with SIGKILL *while the leader is still unreaped* (checked with `waitid(WNOWAIT)`),
  so the group id cannot have been reused by an unrelated process. A grandchild that keeps
  the pipes open is killed with it; one that leaves the group with `setsid` is out of reach
  (documented in docs/conformance.md).
- One thread, no pumps: stdin, stdout and stderr are non-blocking file descriptors driven by
  `select`. A write that the program does not read within its deadline is a timeout, never a
  hang; reads are bounded by line length, lines per op (the caller counts), total bytes; stderr
  is kept as a bounded tail (bytes, not lines: a stream without newlines cannot grow it).
- Every wait has a deadline that is checked before each line is returned, so a program that
  prints valid replies forever still hits its per-op and total limits.
- Optional `RLIMIT_AS` (memory) and `RLIMIT_CPU` (CPU seconds) are set in the child.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Any, Protocol

from pubsub_spec.conformance.lifeline import (
    child_setup,
    ensure_watchdog,
    load_libc,
    unwatch,
    watch,
)

KIB = 1 << 10
MIB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """What the suite allows one run of an implementation (docs/conformance.md, guarantees).

    Seconds are wall-clock; `None` for memory/CPU means no rlimit."""

    op_timeout: float = 5.0  # per op: from sending it to its ack
    init_timeout: float | None = None  # None: max(op_timeout, 10)
    total_timeout: float = 120.0  # the whole trace, init to end_ok
    write_timeout: float | None = None  # one request written; None: op_timeout
    end_grace: float = 1.0  # after end_ok and closing stdin, before SIGKILL
    max_line_bytes: int = MIB  # PROTOCOL.md: a line is at most 1 MiB
    max_lines_per_op: int = 1_000_000  # output lines while one request is answered
    max_total_bytes: int = 256 * MIB  # all stdout of one run
    stderr_tail_bytes: int = 4 * KIB  # the end of stderr kept for the report
    memory_bytes: int | None = None  # RLIMIT_AS of the program
    cpu_seconds: int | None = None  # RLIMIT_CPU of the program

    def __post_init__(self) -> None:
        for name in ("op_timeout", "total_timeout", "end_grace"):
            value = getattr(self, name)
            if not value > 0 or value != value or value == float("inf"):
                raise ValueError(f"Limits.{name} must be a finite number > 0, got {value!r}")
        for name in ("max_line_bytes", "max_lines_per_op", "max_total_bytes", "stderr_tail_bytes"):
            if getattr(self, name) < 1:
                raise ValueError(f"Limits.{name} must be >= 1")

    @property
    def init_wait(self) -> float:
        return self.init_timeout if self.init_timeout is not None else max(self.op_timeout, 10.0)

    @property
    def write_wait(self) -> float:
        return self.write_timeout if self.write_timeout is not None else self.op_timeout


# What a read can end with besides a line (`Line`).
TIMEOUT = "timeout"  # the deadline passed
EOF = "eof"  # stdout closed
EXITED = "exited"  # the leader exited; its children keep stdout open
TOO_LONG = "too-long"  # a line beyond max_line_bytes
TOO_MUCH = "too-much"  # stdout beyond max_total_bytes

# Grace after the leader exits before its still-open stdout counts as closed: lines it wrote
# just before exiting are still read.
EXIT_GRACE = 0.5
_TICK = 0.2  # the longest a select sleeps, so that a leader's exit is noticed


# --- the registry of live groups, killed on SIGINT/SIGTERM of the suite -----------------------


class Killable(Protocol):
    def kill_group(self) -> None: ...


_LIVE: dict[int, Killable] = {}
_LIVE_LOCK = threading.Lock()
_PREVIOUS: dict[int, Any] = {}


def register_live(pgid: int, proc: Killable) -> None:
    """Kill `proc`'s group if the suite gets SIGINT/SIGTERM before `unregister_live`."""
    _install_handlers()
    with _LIVE_LOCK:
        _LIVE[pgid] = proc
    watch(pgid)  # and SIGKILLed by the watchdog if this process dies first (lifeline.py)


def unregister_live(pgid: int) -> None:
    with _LIVE_LOCK:
        _LIVE.pop(pgid, None)
    unwatch(pgid)


def reset_in_child() -> None:
    """In a forked child: forget the parent's groups and signal handlers."""
    with contextlib.suppress(RuntimeError):
        _LIVE.clear()
    for signum, previous in list(_PREVIOUS.items()):
        with contextlib.suppress(ValueError, OSError, TypeError):
            signal.signal(signum, signal.SIG_DFL if previous is None else previous)
    _PREVIOUS.clear()


def kill_all() -> None:
    """Kill every process group this process supervises (signal handlers, atexit)."""
    with _LIVE_LOCK:
        live = list(_LIVE.values())
    for proc in live:
        proc.kill_group()


def _on_signal(signum: int, frame: FrameType | None) -> None:
    kill_all()
    previous = _PREVIOUS.get(signum)
    if callable(previous):
        previous(signum, frame)
        return
    if previous == signal.SIG_IGN:
        return
    # default action: remove the temporary folders (lifeline.remove_at_exit), restore the
    # default and deliver the signal again
    from pubsub_spec.conformance.lifeline import remove_now

    remove_now()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def install_handlers() -> None:
    """Install the SIGINT/SIGTERM handler now (conformance/lifeline.py chains to it)."""
    _install_handlers()


def _install_handlers() -> None:
    """Chain a handler for SIGINT and SIGTERM (once, main thread only: Python's rule)."""
    if _PREVIOUS or threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(ValueError, OSError):
            _PREVIOUS[signum] = signal.signal(signum, _on_signal)


def _set_nonblocking(fd: int) -> None:
    os.set_blocking(fd, False)


def rlimits(memory: int | None, cpu: int | None) -> Callable[[], None] | None:
    if memory is None and cpu is None:
        return None

    def apply() -> None:  # in the child, between fork and exec
        import resource

        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        if cpu is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))

    return apply


class Supervised:
    """One running program: its group, non-blocking pipes and bounded buffers."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str], limits: Limits) -> None:
        self.limits = limits
        load_libc()
        ensure_watchdog()
        self.p = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env),
            start_new_session=True,  # own session and process group: pgid == pid
            # dies with this process even on SIGKILL (conformance/lifeline.py), then rlimits
            preexec_fn=child_setup(limits.memory_bytes, limits.cpu_seconds),
            close_fds=True,
        )
        self.pid = self.p.pid
        assert self.p.stdin and self.p.stdout and self.p.stderr
        self._in: int | None = self.p.stdin.fileno()
        self._out: int | None = self.p.stdout.fileno()
        self._err: int | None = self.p.stderr.fileno()
        for fd in (self._in, self._out, self._err):
            _set_nonblocking(fd)
        self._buf = bytearray()
        self._tail = bytearray()
        self.total_bytes = 0
        self.line_no = 0
        self._exited_at: float | None = None
        self._status: int | None = None
        self._reaped = False
        self._killed = False
        register_live(self.pid, self)

    # --- the leader's state, without reaping it ---

    def _leader_exited(self) -> bool:
        """True once the leader has exited; it stays a zombie (unreaped) until `close`."""
        if self._exited_at is not None:
            return True
        try:
            info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:  # already reaped
            self._exited_at = time.monotonic()
            return True
        if info is None:
            return False
        self._exited_at = time.monotonic()
        code = info.si_status
        self._status = -code if info.si_code in (os.CLD_KILLED, os.CLD_DUMPED) else code
        return True

    def status(self) -> int | None:
        """The leader's exit status (negative: killed by that signal), None while running."""
        return self._status if self._leader_exited() else None

    def wait_exit(self, seconds: float) -> int | None:
        end = time.monotonic() + seconds
        while not self._leader_exited():
            if time.monotonic() >= end:
                return None
            time.sleep(0.01)
        return self._status

    # --- writing ---

    def send(self, data: bytes, deadline: float) -> str:
        """Write all of `data` before `deadline`: "ok", TIMEOUT, or EOF (stdin closed). Output
        that arrives meanwhile is buffered (bounded), so a program that writes before it
        reads cannot deadlock with us."""
        view = memoryview(data)
        while view:
            if self._in is None:
                return EOF
            left = deadline - time.monotonic()
            if left <= 0:
                return TIMEOUT
            readable = [fd for fd in (self._out, self._err) if fd is not None]
            if len(self._buf) > self.limits.max_line_bytes * 2:
                readable = [fd for fd in readable if fd != self._out]  # stop reading stdout
            r, w, _ = select.select(readable, [self._in], [], min(left, _TICK))
            for fd in r:
                self._drain(fd)
            if w:
                try:
                    n = os.write(self._in, view[: 64 * KIB])
                except BlockingIOError:
                    continue
                except (BrokenPipeError, OSError):
                    self.close_stdin()
                    return EOF
                view = view[n:]
            elif self._leader_exited() and time.monotonic() - (self._exited_at or 0) > EXIT_GRACE:
                return EOF
        return "ok"

    def close_stdin(self) -> None:
        if self._in is not None:
            with contextlib.suppress(OSError):
                assert self.p.stdin is not None
                self.p.stdin.close()
            self._in = None

    # --- reading ---

    def _drain(self, fd: int) -> None:
        """Read what is there from stdout (into the line buffer) or stderr (into the tail)."""
        try:
            chunk = os.read(fd, 64 * KIB)
        except BlockingIOError:
            return
        except OSError as e:
            if e.errno != errno.EAGAIN:
                chunk = b""
            else:
                return
        if fd == self._err:
            if not chunk:
                self._err = None
                return
            self._tail += chunk
            excess = len(self._tail) - self.limits.stderr_tail_bytes
            if excess > 0:
                del self._tail[:excess]
            return
        if not chunk:
            self._out = None
            return
        self.total_bytes += len(chunk)
        self._buf += chunk

    def _pop_line(self) -> bytes | str | None:
        if self.total_bytes > self.limits.max_total_bytes:
            return TOO_MUCH
        at = self._buf.find(b"\n")
        if at < 0:
            return TOO_LONG if len(self._buf) > self.limits.max_line_bytes else None
        if at > self.limits.max_line_bytes:
            return TOO_LONG
        line = bytes(self._buf[:at])
        del self._buf[: at + 1]
        self.line_no += 1
        return line

    def read_line(self, deadline: float) -> bytes | str:
        """The next stdout line (without its newline), or TIMEOUT, EOF, EXITED, TOO_LONG,
        TOO_MUCH. The deadline is checked first, so endless output cannot outlast it."""
        while True:
            if time.monotonic() >= deadline:
                return TIMEOUT
            line = self._pop_line()
            if line is not None:
                return line
            if self._out is None:
                if self._buf:  # a last line without newline
                    self.line_no += 1
                    rest = bytes(self._buf)
                    self._buf.clear()
                    return rest
                return EOF
            if self._leader_exited() and time.monotonic() - (self._exited_at or 0) > EXIT_GRACE:
                return EXITED  # its children hold stdout open; the leader is gone
            readable = [fd for fd in (self._out, self._err) if fd is not None]
            left = deadline - time.monotonic()
            r, _, _ = select.select(readable, [], [], max(0.0, min(left, _TICK)))
            for fd in r:
                self._drain(fd)

    def stderr_tail(self) -> str:
        return self._tail.decode("utf-8", "replace")

    def stderr_last_line(self, limit: int = 200) -> str:
        lines = [x.strip() for x in self.stderr_tail().splitlines() if x.strip()]
        return lines[-1][:limit] if lines else ""

    # --- the end ---

    def kill_group(self) -> None:
        """SIGKILL the whole group, unless the leader was already reaped (then its pgid may
        belong to someone else by now)."""
        if self._reaped:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        self._killed = True

    def close(self, grace: float | None = None) -> int | None:
        """Close stdin, give the leader `grace` seconds to exit, kill the whole group, reap
        the leader, close the pipes. Returns the leader's exit status."""
        self.close_stdin()
        wait = self.limits.end_grace if grace is None else grace
        end = time.monotonic() + wait
        while not self._leader_exited() and time.monotonic() < end:
            readable = [fd for fd in (self._out, self._err) if fd is not None]
            if readable:  # keep draining, so the program is not blocked writing
                r, _, _ = select.select(readable, [], [], 0.02)
                for fd in r:
                    self._drain(fd)
                self._buf.clear()
            else:
                time.sleep(0.01)
        self.kill_group()  # the leader is unreaped here: the group id is still ours
        with contextlib.suppress(ChildProcessError):
            self.p.wait()
        self._reaped = True
        unregister_live(self.pid)
        for stream in (self.p.stdout, self.p.stderr):
            with contextlib.suppress(OSError):
                if stream:
                    stream.close()
        self._out = self._err = None
        if self._status is None:
            self._status = self.p.returncode
        return self._status

    def __enter__(self) -> Supervised:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(0.0 if exc[0] is not None else None)


def describe_exit(code: int | None, limits: Limits | None = None) -> str:
    """Words for how a program ended (negative: killed by that signal)."""
    if code is None:
        return "closed its output (still running)"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        why = ""
        if limits is not None and limits.cpu_seconds is not None and -code == signal.SIGXCPU:
            why = f", CPU limit of {limits.cpu_seconds}s"
        return f"crashed (killed by {name}{why})"
    if code == 0:
        return "exited (status 0) without answering"
    return f"crashed (exit {code})"


def group_alive(pgid: int) -> list[int]:
    """Pids of live (not zombie) processes in process group `pgid`, from /proc (tests)."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read().decode("ascii", "replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and fields[0] != "Z" and int(fields[2]) == pgid:
            alive.append(int(entry))
    return alive


def pid_alive(pid: int) -> bool:
    """True if `pid` is a live process (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
    except OSError:
        return False
    return stat[stat.rfind(")") + 2 :].split()[0] not in ("Z", "X")


__all__ = [
    "EOF",
    "EXITED",
    "TIMEOUT",
    "TOO_LONG",
    "TOO_MUCH",
    "Limits",
    "Supervised",
    "describe_exit",
    "group_alive",
    "kill_all",
    "pid_alive",
    "register_live",
    "rlimits",
    "unregister_live",
]
