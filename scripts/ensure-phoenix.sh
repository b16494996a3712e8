#!/usr/bin/env bash
# Install Arize Phoenix, a real OTLP trace backend, into its own venv under .tools/phoenix/
# (it brings ~850 MB of dependencies that must never meet the project's own pins).
#
# Idempotent: does nothing when the pinned version is already installed. Installs only from
# the configured package index, with pip. Prints how long the install took, for the budget
# of the test that needs it (tests/telemetry/test_phoenix.py).
set -euo pipefail
cd "$(dirname "$0")/.."

PHOENIX_VERSION="20.26.1"  # pinned: the test reads spans back through this version's API
PYTHON="${PYTHON:-python3}"
TOOLS=".tools/phoenix"
STAMP="$TOOLS/.installed-$PHOENIX_VERSION"

[ -e "$STAMP" ] && exit 0
started=$(date +%s)
rm -rf "$TOOLS"
"$PYTHON" -m venv "$TOOLS"
"$TOOLS/bin/python" -m pip install --quiet --disable-pip-version-check \
    "arize-phoenix==$PHOENIX_VERSION"
touch "$STAMP"
echo "ensure-phoenix: arize-phoenix $PHOENIX_VERSION installed in $TOOLS in $(( $(date +%s) - started ))s" >&2
