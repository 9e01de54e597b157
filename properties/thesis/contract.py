"""The thesis system's contract (properties/contract.py): Wei Li's distributed 2d-tree over
Pastry, with everything outside reference/thesis/ that belongs to it."""

from __future__ import annotations

from pubsub_spec.properties.contract import FigureSet, SystemContract

CONTRACT = SystemContract(
    family="thesis",
    paper="Wei Li, A Content-based Publish/Subscribe Framework over Structured Peer-to-Peer "
    "Networks, MSc thesis, University of British Columbia, 2008",
    systems=("thesis",),
    tla_models=("MCCutoffRemap*", "MCTwoDTree*"),
    abstraction_maps=(
        "pubsub_spec.properties.thesis.trace_export",  # runs -> CutoffRemap.tla states
        "pubsub_spec.properties.thesis.tree_trace",  # runs -> TwoDTree.tla states
    ),
    # lemmas §1-5 of properties/lemmas.py (§4-5 are LBDD's, proved with these) and the
    # mutants of properties/lemma_mutants.py
    z3=("pubsub_spec.properties.lemma_mutants:rows",),
    hypothesis=("pubsub_spec.properties.checks:rows",),
    tla=(
        "pubsub_spec.properties.trace_validation:thesis_rows",
        "pubsub_spec.properties.liveness:thesis_rows",
    ),
    mutants=("pubsub_spec.properties.thesis.mutants", "pubsub_spec.properties.lemma_mutants"),
    workloads=(
        "pubsub_spec.reference.thesis.workload",  # Table 4.1's Zipf workload (§4.1.2)
        "pubsub_spec.properties.thesis.strategies",  # Hypothesis workloads and split races
    ),
    generators=("zipf", "cutoff"),  # Table 4.1's workload (§4.1.2); cut-off ranges (§3.5)
    benchmarks=(
        "bench_thesis_simulate",
        "bench_thesis_speed",
        "bench_thesis_gaps",
        "bench_thesis_variants",
    ),
    figures=(
        FigureSet(
            "thesis Chapter 4 (Figs. 4.1-4.10, Table 4.5)",
            ("4.1", "4.2", "4.3", "4.4", "4.5", "4.6", "4.7", "4.8", "4.9", "4.10", "T4.5"),
            writer="pubsub_spec.cmd_figures:write_thesis_figures",
            heads_index=True,
        ),
    ),
)
