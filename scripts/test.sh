#!/usr/bin/env bash
# The project's test command: lint, type-check, then the test suite (CI runs exactly this).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$HOME/.cargo/bin:$PATH"
export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
echo "== ruff"; ruff check .
echo "== mypy --strict"; mypy
echo "== pytest"; python -m pytest -n 2 --dist worksteal --durations=25 "$@"
