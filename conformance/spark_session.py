"""The SparkSession of the conformance suite: embedded local mode by default, a real cluster
with `master` (e.g. spark://host:7077). docs/design.md#toolchain."""

from __future__ import annotations

import os
import sys
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
    import os
    import tempfile
    import zipfile
    from pathlib import Path

    import pubsub_spec

    root = Path(pubsub_spec.__file__).parent
    target = Path(tempfile.mkdtemp(prefix="pubsub-spec-")) / "pubsub_spec_code.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        # followlinks: in a checkout, pubsub_spec/reference etc. are symlinks to the top folders
        for folder, dirs, names in os.walk(root, followlinks=True):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for n in sorted(n for n in names if not n.endswith(".pyc")):
                f = Path(folder) / n
                z.write(f, (Path("pubsub_spec") / f.relative_to(root)).as_posix())
    spark.sparkContext.addPyFile(str(target))
    return str(target)
