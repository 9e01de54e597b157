#!/usr/bin/env bash
# One-time (idempotent) set-up of everything the project needs on a fresh machine:
# Java 17+ for Spark, the tla-checker binary, and a virtualenv with the Python packages.
set -euo pipefail
cd "$(dirname "$0")/.."
TLA_CHECKER_VERSION="${TLA_CHECKER_VERSION:-$(cat scripts/tla-checker.version 2>/dev/null || echo '')}"

log() { printf '[setup] %s\n' "$*" >&2; }

# --- Java (PySpark 4 needs Java 17+) -------------------------------------------------------
java_major() { java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1; }
if ! command -v java >/dev/null 2>&1 || [ "$(java_major)" -lt 17 ] 2>/dev/null; then
    log "installing Java 17 (Debian openjdk-17-jre-headless)"
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq openjdk-17-jre-headless >/dev/null
fi

# --- tla-checker (crates.io) ---------------------------------------------------------------
export PATH="$HOME/.cargo/bin:$PATH"
if [ -n "$TLA_CHECKER_VERSION" ]; then
    have=""
    if command -v tla >/dev/null 2>&1; then
        have=$(cargo install --list 2>/dev/null | sed -n 's/^tla-checker v\([^:]*\):.*/\1/p')
    fi
    if [ "$have" != "$TLA_CHECKER_VERSION" ]; then
        if command -v cargo >/dev/null 2>&1; then
            log "cargo install tla-checker@$TLA_CHECKER_VERSION"
            cargo install tla-checker --locked --version "$TLA_CHECKER_VERSION" -q
        else
            log "cargo not found: TLA+ checks will be reported as skipped"
        fi
    fi
fi

# --- Go (the examples in conformance/examples/go-*: built and run by tests/test_implementer_kit.py,
# tests/test_go_lbdd.py; standard library only, no download) ---------------------------------
if command -v go >/dev/null 2>&1; then
    for example in conformance/examples/go-*/; do
        log "go build $example"
        (cd "$example" && GOTOOLCHAIN=local GOFLAGS=-mod=mod go build -o /dev/null .)
    done
else
    log "go not found: the Go examples' tests will be skipped (under CI=1 they fail); install Go 1.21+"
fi

# --- Python virtualenv ---------------------------------------------------------------------
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    log "creating .venv"
    "$PY" -m venv .venv
fi
stamp=.venv/.installed-$(sha1sum pyproject.toml | cut -c1-12)
if [ ! -f "$stamp" ]; then
    log "installing Python packages"
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e '.[dev]'
    rm -f .venv/.installed-*
    touch "$stamp"
fi
log "ready"
