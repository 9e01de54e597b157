"""Kyra's contract (properties/contract.py): Fengyun Cao, Jaswinder Pal Singh, "Efficient
Event Routing in Content-based Publish-Subscribe Service Networks", INFOCOM 2004, with its two
baselines, Siena and multicast groups."""

from __future__ import annotations

from pubsub_spec.properties.contract import FigureSet, LemmaSet, SystemContract

CONTRACT = SystemContract(
    family="kyra",
    paper="Fengyun Cao, Jaswinder Pal Singh, Efficient Event Routing in Content-based "
    "Publish-Subscribe Service Networks, INFOCOM 2004",
    systems=("kyra", "siena", "mcgroups"),
    tla_models=("MCKyraRouting*",),
    abstraction_maps=(
        "pubsub_spec.properties.kyra.race",  # the Python side of KyraRouting
        "pubsub_spec.properties.kyra.trace_export",  # runs -> KyraRouting.tla states
        "pubsub_spec.properties.kyra.observed",  # observation logs -> the same states
    ),
    z3=(LemmaSet("Kyra: zones, trees and filters", "pubsub_spec.properties.kyra.lemmas"),),
    hypothesis=(
        "pubsub_spec.properties.kyra.race:rows",  # subscriptions racing publications
        "pubsub_spec.properties.kyra.rows:rows",  # HAC cliques and MST routing trees
    ),
    tla=("pubsub_spec.properties.trace_validation:kyra_rows",),
    mutants=("pubsub_spec.properties.kyra.mutants", "pubsub_spec.properties.kyra.trace_export"),
    workloads=("pubsub_spec.properties.kyra.race",),
    benchmarks=("bench_kyra",),
    # the paper's evaluation is lost; its claims C1-C5 are measured beside the runs
    figures=(
        FigureSet(
            "Kyra claims C1-C5 (§IV-V)",
            ("C1", "C2", "C3", "C4", "C5"),
            writer="pubsub_spec.figures_kyra:write_figures",  # the experiments of bench_kyra
        ),
    ),
)
