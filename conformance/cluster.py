"""A Spark standalone cluster on loopback (one master, one worker), started from the
pyspark wheel's own `spark-class`, for testing `--master spark://...` on one machine."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_port(port: int, timeout: float) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.3)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout}s")


@dataclass
class LoopbackCluster:
    url: str
    master: subprocess.Popen[bytes]
    worker: subprocess.Popen[bytes]

    def stop(self) -> None:
        for p in (self.worker, self.master):
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def start_cluster(log_dir: Path, timeout: float = 60.0) -> LoopbackCluster:
    home = spark_home()
    env = dict(os.environ, SPARK_HOME=str(home), SPARK_LOCAL_IP="127.0.0.1")
    env.setdefault("PYSPARK_PYTHON", sys.executable)
    cls = str(home / "bin" / "spark-class")
    port, ui, wui = _free_port(), _free_port(), _free_port()
    log_dir.mkdir(parents=True, exist_ok=True)
    master = subprocess.Popen(
        [cls, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
         "--port", str(port), "--webui-port", str(ui)],
        env=env, stdout=open(log_dir / "master.log", "wb"), stderr=subprocess.STDOUT,  # noqa: SIM115
    )  # fmt: skip
    _wait_port(port, timeout)
    url = f"spark://127.0.0.1:{port}"
    worker = subprocess.Popen(
        [cls, "org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1",
         "--cores", "2", "--memory", "2g", "--webui-port", str(wui)],
        env=env, stdout=open(log_dir / "worker.log", "wb"), stderr=subprocess.STDOUT,  # noqa: SIM115
    )  # fmt: skip
    cluster = LoopbackCluster(url, master, worker)
    end = time.monotonic() + timeout
    while time.monotonic() < end:  # the worker has registered when the master logs it
        if "Registering worker" in (log_dir / "master.log").read_text(errors="replace"):
            return cluster
        time.sleep(0.5)
    cluster.stop()
    raise TimeoutError("the worker did not register with the master")
