"""Thesis Chapter 4 figure by figure: probe routing and event delivery chosen
separately (legacy `delivery` values kept), the thesis preset and the default cut-off c, the
streamed oracle comparison of the figures, and `pubsub-spec figures` itself."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from pubsub_spec.cli import main
from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.oracle import Delivery, expected_deliveries
from pubsub_spec.reference.thesis.config import (
    DEFAULT_CUTOFF_FRACTION,
    ThesisCodec,
    ThesisConfig,
    config_of,
    thesis_preset,
    with_config,
)
from pubsub_spec.reference.thesis.figures import (
    StreamingSystem,
    run_stats,
    streaming_oracle,
    workload,
)
from pubsub_spec.reference.thesis.run import run_trace
from pubsub_spec.reference.thesis.workload import thesis_schema, thesis_trace


@pytest.mark.parametrize(
    ("delivery", "probe", "routing", "event"),
    [
        ("unicast", None, "unicast", "unicast"),
        ("multicast", None, "multicast", "grouped"),  # legacy: both by multicast
        ("lbdd", None, "multicast", "lbdd"),  # legacy: multicast probes, LBDD delivery
        ("grouped", None, "multicast", "grouped"),
        ("unicast", "multicast", "multicast", "unicast"),  # the thesis' setting
        ("multicast", "unicast", "unicast", "grouped"),
    ],
)
def test_probe_and_delivery_resolve(
    delivery: str, probe: str | None, routing: str, event: str
) -> None:
    c = ThesisConfig(delivery=delivery, probe=probe)  # type: ignore[arg-type]
    assert (c.probe_routing, c.event_delivery) == (routing, event)


def test_codec_keeps_legacy_headers_and_reads_probe() -> None:
    codec, schemas = ThesisCodec(), (thesis_schema(),)
    legacy = codec.parse({"delivery": "multicast"}, "line 1", schemas)
    assert codec.to_json(legacy) == {"delivery": "multicast"}  # vectors stay byte-identical
    new = codec.parse({"probe": "multicast", "delivery": "unicast"}, "line 1", schemas)
    assert (new.probe_routing, new.event_delivery) == ("multicast", "unicast")
    assert codec.to_json(new) == {"probe": "multicast"}
    assert codec.parse(codec.to_json(new), "line 1", schemas) == new
    with pytest.raises(InputError, match=r"config\.systems\.thesis\.probe"):
        codec.parse({"probe": "grouped"}, "line 1", schemas)


def test_legacy_multicast_runs_as_multicast_probes_with_grouped_delivery() -> None:
    trace = thesis_trace(20, 3, 40, seed=3)
    legacy = run_trace(with_config(trace, ThesisConfig(delivery="multicast")))
    split = run_trace(with_config(trace, ThesisConfig(probe="multicast", delivery="grouped")))
    thesis = run_trace(with_config(trace, ThesisConfig(probe="multicast", delivery="unicast")))
    assert legacy.event_log_hash == split.event_log_hash
    assert thesis.event_log_hash != legacy.event_log_hash
    assert sorted(thesis.deliveries) == sorted(legacy.deliveries) == expected_deliveries(trace)


def test_thesis_preset_and_default_cutoff() -> None:
    schema = thesis_schema()
    c = thesis_preset((schema,))
    assert (c.probe_routing, c.event_delivery) == ("multicast", "unicast")
    widths = {f"{schema.name}/{a.name}": a.max - a.min for a in schema.attributes}
    assert dict(c.cutoff) == {q: DEFAULT_CUTOFF_FRACTION * w for q, w in widths.items()}


def test_simulate_preset_and_flags(capsys: pytest.CaptureFixture[str]) -> None:
    small = ["simulate", "--nodes", "30", "--subs-per-node", "3", "--events", "40", "--seed", "2"]
    assert main([*small, "--preset", "thesis"]) == 0
    out = capsys.readouterr().out
    assert "probes multicast, delivery unicast" in out and "oracle: agree" in out
    assert main([*small, "--probe", "unicast", "--delivery", "grouped", "--cutoff", "on"]) == 0
    assert "probes unicast, delivery grouped" in capsys.readouterr().out


class DropsOne(StreamingSystem):
    """A mutant that loses the third delivery and duplicates the fifth."""

    n = 0

    def record_delivery(self, delivery: Delivery, latency_ms: float) -> None:
        self.n += 1
        if self.n != 3:
            super().record_delivery(delivery, latency_ms)
        if self.n == 5:
            super().record_delivery(delivery, latency_ms)


def test_streamed_comparison_agrees_and_catches_a_lost_and_a_duplicate_delivery() -> None:
    trace = workload(25, 3, 60, seed=4, run="thesis")
    stats = run_stats("t", trace)
    assert stats.agree and stats.deliveries == len(expected_deliveries(trace)) > 20
    assert sum(stats.latency_hist.values()) == stats.deliveries
    bad = run_trace(trace, check=False, system_class=DropsOne)
    assert isinstance(bad.system, DropsOne)
    assert len(bad.system.digest.disagreeing(streaming_oracle(trace))) == 2
    assert bad.deliveries == []  # nothing held


def test_cutoff_run_is_configured_as_the_thesis_preset() -> None:
    trace = workload(10, 2, 5, seed=1, run="no-cutoff")
    assert config_of(trace) == replace(thesis_preset(trace.schemas), cutoff=())


def test_figures_command_writes_pngs_csvs_and_page(tmp_path: Path) -> None:
    out = tmp_path / "f"
    code = main(["figures", "--scale", "small", "--out", str(out), "--only", "4.3,4.6,T4.5"])
    assert code == 0
    for name in ("fig_4_3", "fig_4_6", "fig_T4_5"):
        assert (out / f"{name}.png").stat().st_size > 10_000
        rows = (out / f"{name}.csv").read_text().splitlines()
        assert rows[0] == "series,x,y" and len(rows) > 5
    page = (out / "index.md").read_text()
    assert "## Fig. 4.6" in page and "| thesis |" in page and "agree" in page
    assert main(["figures", "--out", str(out), "--only", "4.99"]) == 2
