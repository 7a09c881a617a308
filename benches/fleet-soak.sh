#!/usr/bin/env bash
# Fleet soak behind a CDN: .ci/fleet-cdn (nginx origin <- Varnish <- a
# fault-injecting proxy <- 5 replicas) with --soak 600: the single pass
# over its faults, then ten minutes of releases published under faults
# drawn at random (seeded), every replica checked after each. It ends
# with one line: checked responses, wrong bytes, stuck replicas, stray
# files and the worst time from a fault clearing to every replica serving
# the newest release; it exits 1 on any violation (the work folder, with
# every replica's log and state folder, is kept and named).
#
#   bash benches/fleet-soak.sh
#   SOAK=1800 SEED=7 bash benches/fleet-soak.sh
#   FLEET_BIN=/tmp/foundry-catalog-before bash benches/fleet-soak.sh   # another build, not rebuilt
#   bash benches/fleet-soak.sh --stop-on-first                         # more flags go to .ci/fleet-cdn
#
# Against the release binary, built here unless FLEET_BIN names one.
# Not run in CI (the CI run is .ci/fleet-cdn's default, --soak 120, on
# the debug build). Needs nginx and varnishd: installed if missing.
set -euo pipefail
cd "$(dirname "$0")/.."

SOAK=${SOAK:-600}
SEED=${SEED:-1}

if ! command -v nginx >/dev/null || ! command -v varnishd >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light varnish >/dev/null
fi
if [ -z "${FLEET_BIN:-}" ]; then
  cargo build --release --locked --quiet --bin foundry-catalog
  FLEET_BIN=${CARGO_TARGET_DIR:-$PWD/target}/release/foundry-catalog
fi
export FLEET_BIN
echo "fleet soak: $FLEET_BIN, $SOAK s of random faults (seed $SEED), $(nproc) cores, $(date -u +%F)"
exec python3 .ci/fleet-cdn --soak "$SOAK" --seed "$SEED" "$@"
