#!/usr/bin/env bash
# Screenshots of the docs site in headless Chromium: the home page, an invariant page
# with its TLA+ module, and the conformance report, as PNGs in out/screenshots/ to be looked at.
#   bash scripts/docs-screenshots.sh [--no-build]
# Needs chromium (Debian: apt-get install chromium; CHROMIUM=/path overrides).
set -euo pipefail
cd "$(dirname "$0")/.."
export NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true
CHROMIUM="${CHROMIUM:-$(command -v chromium || command -v chromium-browser || echo /usr/bin/chromium)}"
[ -x "$CHROMIUM" ] || { echo "chromium not found: apt-get install chromium" >&2; exit 3; }
if [ "${1:-}" != "--no-build" ]; then .venv/bin/mkdocs build --strict; fi
out=out/screenshots
mkdir -p "$out"
port=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
.venv/bin/python -m http.server "$port" --bind 127.0.0.1 --directory out/site >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
    curl -sf "http://127.0.0.1:$port/" >/dev/null 2>&1 && break
    sleep 0.1
done
shot() {  # name, path, height
    "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
        --window-size="1280,${3:-1000}" --screenshot="$PWD/$out/$1.png" \
        "http://127.0.0.1:$port/$2" >/dev/null 2>&1
    echo "$out/$1.png"
}
shot home "" 1100
shot invariant "invariants/single-delivery/" 1400
shot tla-module "spec/thesis/CutoffRemap/" 1400
shot report "conformance-report/" 1400
shot api "api/common/" 1100
