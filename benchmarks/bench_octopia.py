"""OctopiA (Shafique, arXiv:1604.06853) measured beside the paper's evaluation (§VIII).

Every figure the text states is printed beside ours; where they differ, docs/octopia.md
("Benchmark") says why. Four experiments, all on Fig. 10's SCOT (caterpillar 14 x K5, 70
brokers, decision A12) with the stock-quote workload built as `octopia-stock` builds it
(conformance/generators.py: 10 attributes, 500 symbols, 2 % selectivity; one advertisement per
publisher, one subscription per subscriber, as §VIII says):

1. Publisher scalability (Fig. 9): advertisements 100 -> 500 after the subscriptions; SRT
   entries per broker, advertisement IMs (scotAFP against TID flooding) and advertisement delay.
2. Subscriber scalability (Fig. 11(a)-(c)): 100 publishers, subscribers 500 -> 5000; PRT
   entries per broker and subscription IMs against TID.
3. End to end on one scaled stock trace: IMs per phase, bytes, delivery latency and table sizes
   for `octopia-snr`, `octopia-idr`, `tid` and the thesis' 2d-tree (`reference`), each run
   against the oracle.
4. Burst (§VIII "Dynamic Notification Routing"): a High Rate Publisher (HRP) sends most quotes,
   faster than a link's output queue serves them; IMs, delays, the share of notifications on
   time and the settling time for SNR, IDR and TID; and the stock generators' own `octopia-burst`.

Beside them, in the paper's setting (docs/octopia.md, decisions O-PROC and O-TID-DYN):

1b. Fig. 9(a)'s advertisement delay with per-broker processing and matching time (O-PROC).
2b. Fig. 11(a)-(c) with the paper's workload: each subscription overlaps 2 % of the 100
    advertisements, PRT entries counted as PADRES keeps them (one per subscription and
    lastHop), subscription delay = the installation latency, O-PROC on; 2c varies the
    advertisements overlapped per subscription, 2d the latency and matching time (the causes).
4b. The HRP burst over 10 seeds with O-PROC, SNR, IDR, TID and TID with dynamic routing, the
    mean queue length q at the HRP's host; 4c varies the HRP's rate.

Claims and criteria (fixed before the run; the claims table at the end applies them):
- a value claim (a relative change) is *reproduced* when every measure in the paper's setting
  is within TOL_PP = 5 percentage points of the paper's value; a ratio when within
  TOL_RATIO = 10 % of it; a count (Fig. 7, Fig. 8) when equal;
- a directional claim is *reproduced* when the paper's sign holds on every size measured, or
  on at least SEED_SHARE = 80 % of the seeds (the burst: 8 of 10);
- otherwise *explained* when a row of the named cause experiment (1b, 2c, 2d, 4c) meets the
  same criterion: the cause isolated, the paper's value reproduced with it varied; else
  *refuted*, with the reason (a count, or the mechanism the experiment shows).

Runs are `reference.sim.run` of seeded traces through the registry's factories; the same seeds
give the same tables. Not a test. The code is pubsub_spec/octopia_eval.py (in the wheel, where
TOL_PP, TOL_RATIO and SEED_SHARE are defined); `pubsub-spec figures --only O7,O9,O11,OB` draws
the same experiments beside the paper's values.

Run: python -m benchmarks.bench_octopia [--quick] [--seed S]
"""

from __future__ import annotations

from pubsub_spec.octopia_eval import main

if __name__ == "__main__":
    main()
