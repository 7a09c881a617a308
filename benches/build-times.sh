#!/usr/bin/env bash
# Cold build times a user sees, each in an empty target folder (the
# registry is assumed downloaded already; `cargo fetch` first):
#
#  1. a newcomer's `cargo test --locked` on a clean clone of this checkout;
#  2. a downstream binary that depends on the runtime only
#     (`foundry-catalog`), `cargo build --release`;
#  3. the same binary also generating its own record type in build.rs with
#     `foundry-catalog-build` as a build-dependency.
#
#   bash benches/build-times.sh
#
# Prints seconds for each. Not run in CI: the figures depend on the machine
# and on what else it is doing; they go in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

seconds() { local start end; start=$(date +%s.%N); "$@" >"$work/log" 2>&1 || { tail -n 30 "$work/log" >&2; exit 1; }; end=$(date +%s.%N); printf '%.1f' "$(echo "$end - $start" | bc)"; }

git clone --quiet "$repo" "$work/clone"
cargo fetch --locked --manifest-path "$work/clone/Cargo.toml" >/dev/null
echo "cargo test --locked (cold, clean clone): $(cd "$work/clone" && CARGO_TARGET_DIR="$work/t-test" seconds cargo test --locked) s"

downstream() { # name, with-generator
  local dir="$work/$1"
  mkdir -p "$dir/src" "$dir/record-types"
  {
    printf '[package]\nname = "%s"\nversion = "0.1.0"\nedition = "2024"\n\n[workspace]\n\n' "$1"
    printf '[dependencies]\nfoundry-catalog = { path = "%s" }\nserde = { version = "1", features = ["derive"] }\nserde_json = "1"\n' "$work/clone"
    [ "$2" = yes ] && printf '\n[build-dependencies]\nfoundry-catalog-build = { path = "%s/foundry-catalog-build" }\n' "$work/clone"
  } > "$dir/Cargo.toml"
  cp "$work/clone/Cargo.lock" "$dir/Cargo.lock"
  if [ "$2" = yes ]; then
    cp "$work/clone/tests/corpus/good/weather_reading.json" "$dir/record-types/"
    printf 'fn main() -> std::process::ExitCode {\n    foundry_catalog_build::Generator::new().build_script("record-types", "records.rs")\n}\n' > "$dir/build.rs"
    printf 'mod records {\n    include!(concat!(env!("OUT_DIR"), "/records.rs"));\n}\n\nfn main() {\n    println!("{}", records::RECORD_TYPES.len());\n}\n' > "$dir/src/main.rs"
  else
    printf 'fn main() {\n    println!("{}", foundry_catalog::record_types().len());\n}\n' > "$dir/src/main.rs"
  fi
  (cd "$dir" && CARGO_TARGET_DIR="$work/t-$1" seconds cargo build --release)
}
echo "downstream, runtime only, cargo build --release (cold): $(downstream runtime-only no) s"
echo "downstream, runtime + generator in build.rs, cargo build --release (cold): $(downstream with-generator yes) s"
