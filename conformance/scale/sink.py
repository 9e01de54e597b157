"""The executors' Parquet writer: rows to one file in bounded batches, published by rename when
closed (tmp file + rename, so that a retried Spark task overwrites its own output)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def arrow_schema(table: tuple[tuple[str, str], ...]) -> Any:
    import pyarrow as pa

    types = {
        "STRING": pa.string(),
        "INT": pa.int32(),
        "BIGINT": pa.int64(),
        "DOUBLE": pa.float64(),
        "ARRAY<STRING>": pa.list_(pa.string()),
    }
    return pa.schema([(name, types[kind]) for name, kind in table])


class ParquetSink:
    """Rows to one Parquet file, flushed every `batch` rows (bounded memory), published by
    rename when closed."""

    def __init__(self, path: Path, table: tuple[tuple[str, str], ...], batch: int = 20_000):
        import pyarrow.parquet as pq

        path.parent.mkdir(parents=True, exist_ok=True)
        self.path, self.tmp = path, path.with_name(f".{path.name}.{os.getpid()}.tmp")
        self.schema = arrow_schema(table)
        self.writer = pq.ParquetWriter(str(self.tmp), self.schema)
        self.rows: list[tuple[Any, ...]] = []
        self.batch = batch

    def add(self, rows: Iterable[tuple[Any, ...]]) -> None:
        self.rows.extend(rows)
        if len(self.rows) >= self.batch:
            self.flush()

    def flush(self) -> None:
        import pyarrow as pa

        if not self.rows:
            return
        cols = list(zip(*self.rows, strict=True))
        arrays = [pa.array(list(c), type=f.type) for c, f in zip(cols, self.schema, strict=True)]
        self.writer.write_table(pa.table(arrays, schema=self.schema))
        self.rows = []

    def close(self) -> None:
        self.flush()
        self.writer.close()
        os.replace(self.tmp, self.path)

