"""All nine systems side by side (docs/comparison.md): the command. The runs, the measures and
the page are `pubsub_spec/compare.py` (also `pubsub-spec figures --only CMP`).

Run: python -m benchmarks.bench_compare [--quick] [--jobs N] [--write docs/comparison.md]
Not a test (tests/test_bench_compare.py runs its core at the generators' tiny profile).
"""

from __future__ import annotations

import sys

from pubsub_spec.compare import main

if __name__ == "__main__":
    sys.exit(main())
