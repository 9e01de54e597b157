"""OctopiA's contract (properties/contract.py): Muhammad Shafique, "Adaptive Content-based
Routing using Subscription Subgrouping in Structured Overlays", arXiv:1604.06853, with SNR, IDR
and the TID baseline."""

from __future__ import annotations

from pubsub_spec.properties.contract import FigureSet, SystemContract

CONTRACT = SystemContract(
    family="octopia",
    paper="Muhammad Shafique, Adaptive Content-based Routing using Subscription Subgrouping in "
    "Structured Overlays, arXiv:1604.06853",
    systems=("octopia-snr", "octopia-idr", "tid"),
    tla_models=("MCScotRouting*",),
    abstraction_maps=(
        "pubsub_spec.properties.octopia.trace_export",  # -> ScotRouting.tla
        "pubsub_spec.properties.octopia.observed",  # observation logs -> the same states
    ),
    hypothesis=("pubsub_spec.properties.octopia.check_rows:rows",),
    tla=("pubsub_spec.properties.trace_validation:octopia_rows",),
    mutants=(
        "pubsub_spec.properties.octopia.mutants",
        "pubsub_spec.properties.octopia.trace_export",  # StcToAllScot
    ),
    workloads=("pubsub_spec.properties.octopia.workloads",),
    generators=("octopia-stock", "octopia-burst"),
    benchmarks=("bench_octopia",),
    figures=(
        FigureSet(
            "OctopiA §VII-B, §VIII (Figs. 7, 9, 11, the burst; the claims table)",
            ("O7", "O9", "O11", "OB"),
            writer="pubsub_spec.octopia_eval:write_figures",
        ),
    ),
)
