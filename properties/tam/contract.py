"""Tam's contract (properties/contract.py): David Tam, Reza Azimi, Hans-Arno Jacobsen,
"Building Content-based Publish/Subscribe Systems with Distributed Hash Tables", DBISP2P 2003,
over Scribe (`tam`) and with home nodes (`tam-basic`)."""

from __future__ import annotations

from pubsub_spec.properties.contract import FigureSet, LemmaSet, SystemContract

CONTRACT = SystemContract(
    family="tam",
    paper="David Tam, Reza Azimi, Hans-Arno Jacobsen, Building Content-based Publish/Subscribe "
    "Systems with Distributed Hash Tables, DBISP2P 2003",
    systems=("tam", "tam-basic"),
    tla_models=("MCScribe*",),
    abstraction_maps=(
        "pubsub_spec.properties.tam.trace_export",  # groups -> Scribe.tla
        "pubsub_spec.properties.tam.observed",  # observation logs -> the same groups
    ),
    z3=(LemmaSet("Tam: intervals, digests, keys", "pubsub_spec.properties.tam.lemmas"),),
    hypothesis=("pubsub_spec.properties.tam.checks:rows",),
    tla=("pubsub_spec.properties.trace_validation:tam_rows",),
    mutants=("pubsub_spec.properties.tam.mutants", "pubsub_spec.properties.tam.trace_export"),
    workloads=("pubsub_spec.properties.tam.checks",),  # churn_traces
    benchmarks=("bench_tam", "bench_tam_paper"),
    # the paper's digits are lost: the shapes of its mechanisms (§3, bench_tam's experiments)
    # and its §5 claim by claim (bench_tam_paper's), on one page
    figures=(
        FigureSet(
            "Tam §3 shapes on the thesis workload, §5 claim by claim on the Table 2 workload (T16)",
            (
                *("messages", "hit-rate", "keys", "rendezvous", "routes"),
                *("H", "L", "S", "Q", "N", "R1", "R2"),
            ),
            writer="pubsub_spec.figures_tam:write_figures",
        ),
    ),
)
