#!/usr/bin/env bash
# Install Grafana's published types (@grafana/schema) and the TypeScript compiler into
# .tools/ts/, exactly as pinned by scripts/ts/package-lock.json (npm ci: integrity-checked).
# tests/dashboards/test_grafana_types.py type-checks every generated dashboard with them.
#
# Idempotent: does nothing when the lock file's packages are installed already. Without npm
# it explains and exits 0: the test then skips, except under CI=true where it fails.
set -euo pipefail
cd "$(dirname "$0")/.."

TOOLS=".tools/ts"
LOCK="scripts/ts/package-lock.json"

if ! command -v npm >/dev/null 2>&1; then
    echo "ensure-ts-tools: npm not found (Debian: nodejs, npm); the Grafana type check will skip" >&2
    echo "ensure-ts-tools: (and fail under CI=true)." >&2
    exit 0
fi
stamp="$TOOLS/.installed-$(sha256sum "$LOCK" | cut -c1-16)"
[ -e "$stamp" ] && exit 0
rm -rf "$TOOLS"
mkdir -p "$TOOLS"
cp scripts/ts/package.json "$LOCK" "$TOOLS/"
(cd "$TOOLS" && npm ci --ignore-scripts --no-audit --no-fund --silent)
touch "$stamp"
echo "ensure-ts-tools: installed $(cd "$TOOLS" && npm ls --depth=0 --parseable 2>/dev/null | wc -l) packages in $TOOLS" >&2
