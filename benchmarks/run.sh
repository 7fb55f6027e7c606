#!/usr/bin/env bash
# Measure the hot path the way users run it: a fresh virtual environment with the package
# installed from this checkout (non-editable), then `gateway bench` in it.
#
#   benchmarks/run.sh                 # pip install (pip compiles .pyc, as it always does)
#   benchmarks/run.sh --no-compile    # the same without .pyc (every import compiles source)
#   RUNS=50 benchmarks/run.sh         # more rounds
#
# Extra arguments after the first go to `gateway bench` (e.g. --only processes --json).
set -euo pipefail
cd "$(dirname "$0")/.."
compile=()
if [[ "${1:-}" == "--no-compile" ]]; then compile=(--no-compile); shift; fi
venv=$(mktemp -d)/venv
python3 -m venv "$venv"
"$venv/bin/pip" install -q "${compile[@]}" .
echo "installed .pyc files for gateway: $(find "$venv" -path '*site-packages/gateway/*.pyc' | wc -l)" >&2
"$venv/bin/gateway" bench --runs "${RUNS:-30}" "$@"
rm -rf "$(dirname "$venv")"
