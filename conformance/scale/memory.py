"""Peak memory of a run at scale, stage by stage: the resident size (RSS, from /proc) of the
driver's Python process, of its JVM and of the largest executor JVM on this machine, sampled in
a thread while a stage runs (`Sampler`), recorded as a `Stage`."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Any


def _rss_mb(pid: int | str = "self") -> float:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def executor_pids(app_id: str) -> list[int]:
    """The executor JVMs of application `app_id` running on this machine (a loopback or
    single-host cluster; on a real cluster they are elsewhere and this is empty)."""
    found: list[int] = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if b"CoarseGrainedExecutorBackend" in cmd and app_id.encode() in cmd:
            found.append(int(entry.name))
    return found


class Sampler:
    """Peak RSS of the driver's Python process, of its JVM (when pyspark started one here) and
    of the largest executor JVM of application `app_id` on this machine, while a stage runs,
    sampled every `every` seconds in a thread (the executors are looked up every 5 samples)."""

    def __init__(self, jvm_pid: int | None, app_id: str | None = None, every: float = 0.2):
        self.jvm_pid, self.app_id, self.every = jvm_pid, app_id, every
        self.python = self.jvm = self.executor = 0.0
        self._executors: list[int] = []
        self._samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _sample(self) -> None:
        self.python = max(self.python, _rss_mb())
        if self.jvm_pid is not None:
            self.jvm = max(self.jvm, _rss_mb(self.jvm_pid))
        if self.app_id is not None:
            if self._samples % 5 == 0:
                self._executors = executor_pids(self.app_id)
            self.executor = max([self.executor, *map(_rss_mb, self._executors)])
        self._samples += 1

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            self._sample()

    def __enter__(self) -> Sampler:
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    def stage(self, name: str, seconds: float, worker_mb: float = 0.0) -> Stage:
        """The stage's record; with no executor JVM of its own (local mode), the executors
        ran in the driver's JVM."""
        return Stage(name, seconds, self.python, self.jvm, worker_mb, self.executor or self.jvm)


def jvm_pid(spark: Any) -> int | None:
    """The pid of the JVM pyspark launched for this driver (None if it attached to one)."""
    proc = getattr(getattr(spark.sparkContext, "_gateway", None), "proc", None)
    pid = getattr(proc, "pid", None)
    return pid if isinstance(pid, int) else None


@dataclass
class Stage:
    name: str
    seconds: float
    driver_peak_mb: float  # the driver's Python process
    driver_jvm_peak_mb: float  # its JVM (in local mode also the executors' JVM); 0 if unknown
    worker_peak_mb: float = 0.0  # the largest Python worker (executor side)
    executor_jvm_peak_mb: float = 0.0  # the largest executor JVM (local mode: the driver's)

