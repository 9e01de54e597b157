"""LBDD's contract (properties/contract.py): Li Kai, Wang Yun, Yin Yi, Yuan Feifei,
"Load-balancing data distribution in publish/subscribe mode", Journal of Southeast University
2014. LBDD has no system of its own in the registry: it is the thesis system's `lbdd` delivery
strategy (the `reference-lbdd` built-in); its algorithms are reference/lbdd/."""

from __future__ import annotations

from pubsub_spec.properties.contract import FigureSet, SystemContract

CONTRACT = SystemContract(
    family="lbdd",
    paper='Li Kai, Wang Yun, Yin Yi, Yuan Feifei, "Load-balancing data distribution in '
    'publish/subscribe mode", Journal of Southeast University 2014',
    systems=(),
    tla_models=("MCLBDD*",),
    abstraction_maps=(
        "pubsub_spec.properties.lbdd.trace_export",  # runs -> LBDD.tla states
        "pubsub_spec.properties.lbdd.observed",  # observation logs -> the same trees
    ),
    # its lemmas are §4-5 of properties/lemmas.py, proved with the thesis' (thesis contract)
    hypothesis=("pubsub_spec.properties.lbdd.rows:rows",),
    tla=(
        "pubsub_spec.properties.trace_validation:lbdd_rows",
        "pubsub_spec.properties.liveness:lbdd_rows",
    ),
    mutants=("pubsub_spec.properties.lbdd.checks",),  # within_bucket_targets
    workloads=("pubsub_spec.properties.lbdd.checks",),  # address_sets
    benchmarks=("bench_lbdd",),
    figures=(
        FigureSet(
            "LBDD §4 (Tab. 1, Figs. 1-4)",
            ("LT1", "L1", "L2", "L3", "L4"),
            writer="pubsub_spec.figures_lbdd:write_figures",
        ),
    ),
)
