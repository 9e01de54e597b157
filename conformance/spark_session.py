"""The SparkSession of the conformance suite: embedded local mode by default, a real cluster
with `master` (e.g. spark://host:7077). docs/design.md#toolchain."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def get_spark(
    master: str | None = None,
    app: str = "pubsub-spec",
    driver_memory: str | None = None,
    java_options: str | None = None,
) -> SparkSession:
    """The session: `master` None means local[2]; a small shuffle partition count, no UI,
    loopback networking and the running interpreter for the Python workers
    (docs/design.md#toolchain). `driver_memory` (e.g. "512m") is the driver JVM's heap, Spark's
    `spark.driver.memory` (default 1g); `java_options` go to the driver's and the executors' JVMs
    (`spark.{driver,executor}.extraJavaOptions`, replacing any set elsewhere). Both take effect
    only when this call starts the JVM."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master(master or "local[2]")
        .appName(app)
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.session.timeZone", "UTC")
    )
    if driver_memory:
        builder = builder.config("spark.driver.memory", driver_memory)
    if java_options:
        builder = builder.config("spark.driver.extraJavaOptions", java_options)
        builder = builder.config("spark.executor.extraJavaOptions", java_options)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def ship_code(spark: Any) -> str:
    """Zip the project's packages and add them to the executors' path (addPyFile), so that the
    workers of a real cluster need nothing but pyspark."""
    import tempfile

    from pubsub_spec.conformance.lifeline import remove_at_exit

    temp = Path(tempfile.mkdtemp(prefix="pubsub-spec-"))
    # executors fetch the zip from here when they start (a cluster's may start late): it lives
    # as long as this process, and goes however the process ends but SIGKILL (lifeline.py)
    remove_at_exit(temp)
    target = temp / "pubsub_spec_code.zip"
    write_code_zip(target)
    spark.sparkContext.addPyFile(str(target))
    return str(target)


def write_code_zip(target: Path) -> None:
    """The project's packages as one zip at `target`, `pubsub_spec/...` inside."""
    import zipfile

    import pubsub_spec

    root = Path(pubsub_spec.__file__).parent
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        # followlinks: in a checkout, pubsub_spec/reference etc. are symlinks to the top folders
        for folder, dirs, names in os.walk(root, followlinks=True):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for n in sorted(n for n in names if not n.endswith(".pyc")):
                f = Path(folder) / n
                z.write(f, (Path("pubsub_spec") / f.relative_to(root)).as_posix())


def end_jvm(spark: Any, wait: float = 5.0) -> None:
    """End the driver JVM this process started (SIGTERM, so that its shutdown hooks remove
    Spark's own temporary folders; SIGKILL after `wait` seconds). Its Python workers end when
    it does, the programs under test with them (conformance/lifeline.py)."""
    import subprocess

    proc = getattr(getattr(spark.sparkContext, "_gateway", None), "proc", None)
    if not isinstance(proc, subprocess.Popen):
        return
    for end in (proc.terminate, proc.kill):
        try:
            end()
            proc.wait(wait)
            return
        except (OSError, subprocess.TimeoutExpired):
            continue


def cancel_jobs(spark: Any, settled: threading.Event, grace: float = 10.0) -> None:
    """At SIGINT/SIGTERM, in a thread of its own (the main thread may be blocked in a Spark
    call, which a signal does not end): cancel every job, so that the call fails and returns;
    if the main thread has not `settled` within `grace` seconds, end the JVM."""
    import contextlib

    with contextlib.suppress(Exception):
        spark.sparkContext.cancelAllJobs()
    if not settled.wait(grace):
        end_jvm(spark)


def stop_within(spark: Any, seconds: float = 15.0) -> None:
    """`spark.stop()` from a thread of its own (after an interrupted call the main thread's
    gateway connection may still owe that call's answer), ending the JVM if it takes longer."""
    import contextlib

    def stop() -> None:
        with contextlib.suppress(Exception):
            spark.stop()

    t = threading.Thread(target=stop, daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        end_jvm(spark)
