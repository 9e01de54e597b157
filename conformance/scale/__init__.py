"""Conformance at Spark scale (docs/conformance.md, "At scale"): a trace set sized by
its number of ops, streamed end to end so that the driver's memory does not grow with it.

1. Plan (driver, small): `plan` turns a target number of ops into trace numbers 0..N-1 (trace
   number k is generator `gens[k % len(gens)]`, index `k // len(gens)`, drawn round-robin) and
   cuts them into partitions of at most `max_partition_ops` estimated ops (the estimate of a
   generator is the length of its trace 0, generated on the driver).
2. Generate and run (executors, `run_partition`): each Spark task generates its traces, writes
   them as Parquet (`parquet/header`, `parquet/ops`: the tables of conformance/parquet.py, one
   file per partition, `trace_id` a column) and runs the implementations on each trace right
   there. Per implementation x trace it writes one result row (`results/`): the deliveries'
   *fingerprint* (count and two sums of CRC-32 of the pairs; the same function Spark SQL
   computes) or the verdict it already knows (a crash, a timeout, a skip). Only per-partition
   counters and peak memory come back to the driver.
3. Judge (Spark SQL): the Spark SQL oracle (spark_oracle.py) reads the Parquet tables; its
   deliveries are reduced to one fingerprint per trace, joined with the result rows, and the
   verdicts are counted in Spark. The driver collects the counts per implementation, and the
   failing (implementation, trace) pairs up to `max_details` per implementation.
4. Details (driver, small): each collected failure's trace is generated again, its expected
   deliveries are computed by the SQL oracle for that trace alone, the implementation runs on it
   (runner.run_one, giving the missing/duplicate/spurious pairs) and it is shrunk.

Sampling (the report says which ran where): the fast built-ins (`FAST`) run on every trace;
the slow ones (the reference simulators, outside programs) on a deterministic, systematic
sample of `slow_fraction` of the traces (`in_sample`: every s-th trace of each generator, s =
1/fraction rounded, from an offset drawn from the seed and the implementation's name, spread
over the generators); `oracle-python` is the cross-check of the SQL oracle: it runs on a sample
of `cross_fraction`, and any trace where it does not pass is a failure of the suite itself (the
two oracles disagree), not of an implementation.

A fingerprint collision would hide a wrong delivery set; with a count and two independent
32-bit sums, a fault that is not built to collide is missed with probability about 2^-64.
The executors write their files straight to `out` (tmp file + rename, so a retried task
overwrites its own output): `out` must be a folder every executor shares with the driver (on
one machine, local mode and the loopback cluster of cluster.py, it always is).

The modules, by concern: planning.py (the plan), sampling.py (which implementation runs where),
executor.py (a Spark task) with sink.py (its Parquet writer), judging.py (fingerprints, verdicts,
details), memory.py (peak memory per stage), run.py (`run_scale`, the stages in order),
report.py (report.md and report.json) and arguments.py (the commands' helpers).
"""
