#!/usr/bin/env bash
# Install Grafana's published types (@grafana/schema, and grafana-foundation-sdk for the
# Prometheus query type), the TypeScript compiler and a JSON Schema generator into .tools/ts/,
# exactly as pinned by scripts/ts/package-lock.json (npm ci: integrity-checked), then make
# JSON Schemas from those types into .tools/ts/grafana-jsonschemas/
# (scripts/ts/grafana-jsonschemas.cjs). tests/dashboards/test_grafana_types.py type-checks
# every generated dashboard with tsc; tests/dashboards/test_dashboards.py validates the
# committed JSON against the schemas.
#
# Idempotent: does nothing when the lock file's packages and the schemas its generator makes
# are installed already. Without npm it explains and exits 0: the tests then skip, except
# under CI=true where they fail.
set -euo pipefail
cd "$(dirname "$0")/.."

TOOLS=".tools/ts"
LOCK="scripts/ts/package-lock.json"
GENERATOR="scripts/ts/grafana-jsonschemas.cjs"

if ! command -v npm >/dev/null 2>&1; then
    echo "ensure-ts-tools: npm not found (Debian: nodejs, npm); the Grafana type and schema checks will skip" >&2
    echo "ensure-ts-tools: (and fail under CI=true)." >&2
    exit 0
fi
stamp="$TOOLS/.installed-$(cat "$LOCK" "$GENERATOR" | sha256sum | cut -c1-16)"
[ -e "$stamp" ] && exit 0
rm -rf "$TOOLS"
mkdir -p "$TOOLS"
cp scripts/ts/package.json "$LOCK" "$TOOLS/"
(cd "$TOOLS" && npm ci --ignore-scripts --no-audit --no-fund --silent)
node "$GENERATOR" "$PWD/$TOOLS/node_modules" "$TOOLS/grafana-jsonschemas"
touch "$stamp"
echo "ensure-ts-tools: installed $(cd "$TOOLS" && npm ls --depth=0 --parseable 2>/dev/null | wc -l) packages in $TOOLS" >&2
