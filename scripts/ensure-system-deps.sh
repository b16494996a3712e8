#!/usr/bin/env bash
# Install the system programs the integration tests need, when they are missing:
#   prometheus, promtool  (Debian package `prometheus`): the real-Prometheus dashboard tests.
#   chromium              (Debian package `chromium`): the report's headless-browser test.
#
# Idempotent and quiet: does nothing when the programs are already there. Installs only from
# the configured Debian mirror, with apt-get, and only as root. Otherwise it explains what
# is missing and exits 0: those tests then skip, except under CI=true where they fail.
# The package's service is never started (a temporary policy-rc.d forbids it).
set -euo pipefail

missing=()
packages=()
for entry in prometheus:prometheus promtool:prometheus chromium:chromium; do
    program="${entry%%:*}" package="${entry#*:}"
    command -v "$program" >/dev/null 2>&1 && continue
    missing+=("$program")
    [[ " ${packages[*]} " == *" $package "* ]] || packages+=("$package")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

explain() {
    echo "ensure-system-deps: missing ${missing[*]} (Debian packages: ${packages[*]}): $1" >&2
    echo "ensure-system-deps: the tests that need them will skip (and fail under CI=true)." >&2
    exit 0
}

command -v apt-get >/dev/null 2>&1 || explain "no apt-get here; install ${packages[*]} by hand (Prometheus 2.x)"
[ "$(id -u)" -eq 0 ] || explain "not root; run: sudo apt-get install --no-install-recommends ${packages[*]}"

policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    trap 'rm -f "$policy"' EXIT
fi

export DEBIAN_FRONTEND=noninteractive
echo "ensure-system-deps: installing Debian's ${packages[*]} (for ${missing[*]})" >&2
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null

for program in "${missing[@]}"; do
    command -v "$program" >/dev/null 2>&1 || {
        echo "ensure-system-deps: '$program' still missing after installing ${packages[*]}" >&2
        exit 1
    }
done
