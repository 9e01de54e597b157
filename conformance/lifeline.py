"""Children die with their parent, and a signalled run ends cleanly (docs/conformance.md,
"Guarantees").

- `die_with_parent(parent)`: in a child (between fork and exec, or right after a fork), ask
  Linux to SIGKILL it when its parent dies, however the parent dies, SIGKILL included
  (`prctl(PR_SET_PDEATHSIG)`, Linux prctl(2)); if the parent is already gone, exit at once.
  The setting survives `exec`, so a program under test and a built-in's worker die with the
  runner. Elsewhere than Linux it does nothing (the runner's SIGINT/SIGTERM handler still
  kills the groups it started: conformance/supervisor.py).
- `watch(pgid)`/`unwatch(pgid)`: a watchdog process SIGKILLs the groups still watched when
  this process ends, however it ends, so the program's own children die with it too.
- `WorkerPool`: a process pool whose workers die with this process (`pool_worker` as their
  initializer) and are killed when its block ends by an exception.
- `remove_at_exit(folder)`: a temporary folder goes when this process ends, by any path but
  SIGKILL.
- `interruptible()`: while it is active, SIGINT and SIGTERM raise `Interrupted` in the main
  thread (after the supervisor has killed the groups it runs), so a command can write what it
  knows, marked interrupted, and exit with `128 + signal` (130 for SIGINT, 143 for SIGTERM).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from types import FrameType
from typing import Any

PR_SET_PDEATHSIG = 1  # linux/prctl.h
_LIBC: Any = None


def _libc() -> Any:
    global _LIBC
    if _LIBC is None:
        _LIBC = ctypes.CDLL(None, use_errno=True)
    return _LIBC


def die_with_parent(parent: int) -> None:
    """In a child of `parent`: be SIGKILLed when the parent dies (Linux), exit if it has."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        _libc().prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the prctl: nobody would kill us
        os._exit(137)


def pool_worker(parent: int) -> None:
    """Initializer of a pool's worker process: die with `parent` (SIGKILL included), and leave
    SIGINT/SIGTERM to it (a forked worker inherits its handlers; the parent kills the pool)."""
    with contextlib.suppress(ValueError, OSError):
        signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent(parent)


class WorkerPool(ProcessPoolExecutor):
    """A process pool whose workers die with this process, however it dies, and are killed at
    once when the `with` block ends by an exception (`Interrupted` at SIGINT/SIGTERM): leaving
    the block does not wait for the runs under way (`pubsub-spec figures --jobs`)."""

    def __init__(self, max_workers: int | None = None) -> None:
        super().__init__(max_workers, initializer=pool_worker, initargs=(os.getpid(),))

    def kill_workers(self) -> None:
        processes: dict[int, Any] = dict(getattr(self, "_processes", None) or {})
        for proc in processes.values():
            with contextlib.suppress(Exception):
                proc.kill()
        self.shutdown(wait=False, cancel_futures=True)

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> bool | None:
        if exc_type is not None:
            self.kill_workers()
        return super().__exit__(exc_type, exc_val, exc_tb)


def child_setup(memory: int | None, cpu: int | None) -> Callable[[], None]:
    """A `preexec_fn`: die with this process, then the optional rlimits."""
    parent = os.getpid()
    from pubsub_spec.conformance.supervisor import rlimits

    limits = rlimits(memory, cpu)

    def apply() -> None:
        die_with_parent(parent)
        if limits is not None:
            limits()

    return apply


_REMOVE: list[str] = []


def remove_at_exit(folder: str | os.PathLike[str]) -> None:
    """Remove `folder` when this process ends: at a normal exit, an exception, SIGINT or SIGTERM
    (the supervisor's handler runs `remove_now` before the default action); not at SIGKILL."""
    if not _REMOVE:
        import atexit

        atexit.register(remove_now)
    _REMOVE.append(os.fspath(folder))


def remove_now() -> None:
    import shutil

    while _REMOVE:
        shutil.rmtree(_REMOVE.pop(), ignore_errors=True)


def load_libc() -> None:
    """Load libc before forking (a preexec_fn should not import or load libraries)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):
            _libc()


# The watchdog: a small process in its own session that reads "+PGID"/"-PGID" lines from this
# process and, when the pipe closes (this process ended, however: SIGKILL included), SIGKILLs
# every group still listed, so a program's own children die too (the parent-death signal
# reaches only the direct child). Linux does not reuse a number as a pid while a live process
# still has it as its group id, so a listed group is ours until its last member is gone.
_WATCHDOG = """
import os, signal, sys
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)
groups = set()
for line in sys.stdin.buffer:
    try:
        pg = int(line[1:])
    except ValueError:
        continue
    (groups.add if line[:1] == b"+" else groups.discard)(pg)
for pg in groups:
    try:
        os.killpg(pg, signal.SIGKILL)
    except OSError:
        pass
"""


class _Watchdog:
    def __init__(self) -> None:
        import subprocess

        self.owner = os.getpid()
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _WATCHDOG],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a signal to our group does not stop it
            close_fds=True,
        )
        assert self.proc.stdin is not None
        self.fd = self.proc.stdin.fileno()
        os.set_inheritable(self.fd, False)

    def send(self, line: str) -> None:
        with contextlib.suppress(OSError):
            os.write(self.fd, line.encode())


_DOG: _Watchdog | None = None
_DOG_LOCK = threading.Lock()


def ensure_watchdog() -> None:
    """Start this process's watchdog now (before a fork), so that only a write is left
    between the fork and `watch`."""
    global _DOG
    if not sys.platform.startswith("linux"):
        return
    with _DOG_LOCK:
        if _DOG is None or _DOG.owner != os.getpid():  # none yet, or the parent's (a fork)
            with contextlib.suppress(OSError):
                _DOG = _Watchdog()


def watch(pgid: int) -> None:
    """Have the watchdog SIGKILL group `pgid` if this process ends before `unwatch(pgid)`."""
    ensure_watchdog()
    with _DOG_LOCK:
        if _DOG is not None and _DOG.owner == os.getpid():
            _DOG.send(f"+{pgid}\n")


def unwatch(pgid: int) -> None:
    with _DOG_LOCK:
        if _DOG is not None and _DOG.owner == os.getpid():
            _DOG.send(f"-{pgid}\n")


class Interrupted(BaseException):  # like KeyboardInterrupt: no `except Exception` eats it
    """SIGINT or SIGTERM arrived; `exit_code` is 128 + the signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


_RAISED = threading.Event()
_CAUGHT: list[Interrupted] = []  # the signal of the last interruptible block, if one came
_ON_SIGNAL: list[Callable[[int], None]] = []


def _raise(signum: int, frame: FrameType | None) -> None:
    from pubsub_spec.conformance.supervisor import kill_all

    kill_all()
    if _RAISED.is_set():  # a repeated or forwarded signal: the first one is being handled
        return
    _RAISED.set()
    stop = Interrupted(signum)
    _CAUGHT[:] = [stop]
    for hook in _ON_SIGNAL:  # in a thread: the main thread may be blocked in a call it made
        threading.Thread(target=hook, args=(signum,), daemon=True).start()
    raise stop


def caught() -> Interrupted | None:
    """The signal that interrupted the last `interruptible` block, if one did: the exception
    that reached the caller may be another one (a library call failing because `on_signal`
    stopped the work it waited for)."""
    return _CAUGHT[0] if _CAUGHT else None


_NUDGE = signal.SIGURG  # ignored by default; a no-op handler inside `interruptible`


def _nudge(signum: int, frame: FrameType | None) -> None:
    """Nothing: the nudge only makes the main thread's blocking call fail with EINTR."""


def _forward(r: int, main: int) -> None:
    """Python runs signal handlers in the main thread only, and a signal the kernel delivered
    to another thread (a Py4J thread, say) does not interrupt the main thread's blocking read:
    nudge the main thread once, so that its read fails with EINTR and the pending handler runs.
    The nudge is not the signal itself: arriving after the block has ended (the main thread was
    not blocked, and has already handled the signal) it must not act a second time."""
    sent = False
    try:
        while data := os.read(r, 64):
            if not sent and _NUDGE not in data:
                sent = True
                with contextlib.suppress(OSError, ValueError):
                    signal.pthread_kill(main, _NUDGE)
    except OSError:
        pass
    finally:
        os.close(r)


@contextlib.contextmanager
def interruptible(on_signal: Callable[[int], None] | None = None) -> Iterator[None]:
    """SIGINT/SIGTERM raise `Interrupted` inside this block (main thread only). `on_signal`,
    if given, runs in a new thread at the first signal: it stops work the main thread may be
    blocked on in a call that does not return at a signal (Spark's jobs: cmd_conform.py)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    from pubsub_spec.conformance.supervisor import install_handlers

    install_handlers()  # first, so that it stays the handler outside this block
    _RAISED.clear()
    _CAUGHT.clear()
    _ON_SIGNAL[:] = [on_signal] if on_signal is not None else []
    r, w = os.pipe()
    os.set_blocking(w, False)
    previous = {s: signal.signal(s, _raise) for s in (signal.SIGINT, signal.SIGTERM)}
    previous[_NUDGE] = signal.signal(_NUDGE, _nudge)
    old_fd = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
    main = threading.main_thread().ident
    assert main is not None
    threading.Thread(target=_forward, args=(r, main), daemon=True).start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(old_fd)
        _ON_SIGNAL.clear()
        for s, handler in previous.items():
            signal.signal(s, handler)
        os.close(w)  # the forwarder reads EOF and ends; it closes nothing else
