#!/usr/bin/env bash
# What a downstream crate pays for generated code: rustc's time on it, not
# the generator's. For the flat and the rich corpus (benches/lib.rs,
# `Corpus`) of TYPES record types of 20 fields (default 200), two crates
# each, built the way their users build them:
#
#  - ours: foundry-catalog-build in build.rs (`Generator::build_script`),
#    foundry-catalog-core as the README shows;
#  - typify 0.8.0: its build-script recipe (the same shapes as JSON Schema,
#    `TypeSpace::add_root_schema`, `to_stream`, prettyplease).
#
# For each, in the dev and the release profile: a cold build (an empty
# target folder, dependencies included), then one definition edited (a
# field of one type renamed, in both) and built again, the two generators
# alternating, ROUNDS times (default 3; the median is shown). Also the
# generated code's size per type. Prints a Markdown table.
#
#   bash benches/rustc.sh [TYPES]
#   CORPORA=rich ROUNDS=1 bash benches/rustc.sh 200   # one corpus, one round
#
# CORPORA (default "flat rich") restricts which corpora are built.
#
# Not run in CI: the figures depend on the machine; they go in
# BENCHMARKS.md. Needs the registry (typify's crates, chrono for its
# dates) on first run.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
types=${1:-200}
corpora=${CORPORA:-flat rich}
for corpus in $corpora; do
  case $corpus in flat | rich) ;; *) echo "CORPORA: flat or rich, not $corpus" >&2; exit 2 ;; esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

seconds() { # command… ; prints the seconds it took
  local start end
  start=$(date +%s.%N)
  "$@" >"$work/log" 2>&1 || { tail -n 40 "$work/log" >&2; exit 1; }
  end=$(date +%s.%N)
  printf '%.1f' "$(echo "$end - $start" | bc)"
}

cargo build --quiet --release -p foundry-catalog-benches --bin write-corpus
write_corpus="$repo/target/release/write-corpus"

ours_crate() { # dir
  mkdir -p "$1/src"
  cat >"$1/Cargo.toml" <<EOF
[package]
name = "ours-generated"
version = "0.1.0"
edition = "2024"

[workspace]

[dependencies]
foundry-catalog-core = { path = "$repo/foundry-catalog-core" }
serde = { version = "1", features = ["derive"] }
serde_json = "1"

[build-dependencies]
foundry-catalog-build = { path = "$repo/foundry-catalog-build" }
EOF
  printf 'fn main() -> std::process::ExitCode {\n    foundry_catalog_build::Generator::new().build_script("record-types", "records.rs")\n}\n' >"$1/build.rs"
  printf '#![allow(warnings)]\npub mod records {\n    include!(concat!(env!("OUT_DIR"), "/records.rs"));\n}\n' >"$1/src/lib.rs"
}

typify_crate() { # dir
  mkdir -p "$1/src"
  cat >"$1/Cargo.toml" <<EOF
[package]
name = "typify-generated"
version = "0.1.0"
edition = "2024"

[workspace]

[dependencies]
serde = { version = "1", features = ["derive"] }
serde_json = "1"
chrono = { version = "0.4", default-features = false, features = ["serde"] }

[build-dependencies]
typify = "=0.8.0"
schemars = "0.8"
serde_json = "1"
syn = { version = "3", features = ["full"] }
prettyplease = "0.3"
EOF
  cat >"$1/build.rs" <<'EOF'
fn main() {
    println!("cargo:rerun-if-changed=schema.json");
    let text = std::fs::read_to_string("schema.json").expect("schema.json");
    let schema: schemars::schema::RootSchema = serde_json::from_str(&text).expect("a JSON Schema");
    let mut space = typify::TypeSpace::new(&typify::TypeSpaceSettings::default());
    space.add_root_schema(schema).expect("typify accepts it");
    let file: syn::File = syn::parse2(space.to_stream()).expect("typify's tokens parse");
    let out = std::path::Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("codegen.rs");
    std::fs::write(out, prettyplease::unparse(&file)).expect("written");
}
EOF
  printf '#![allow(warnings)]\npub mod types {\n    include!(concat!(env!("OUT_DIR"), "/codegen.rs"));\n}\n' >"$1/src/lib.rs"
}

# Renames field 3 of the middle type in both forms of a corpus to $2.
edit() { # dir, new name
  python3 - "$1" "$types" "$2" <<'PY'
import json, sys
d, types, new = sys.argv[1], int(sys.argv[2]), sys.argv[3]
label = f"synthetic_type_{types // 2:04}"
path = f"{d}/record-types/{label}.json"
definition = json.load(open(path))
old = definition["fields"][3]["name"]
definition["fields"][3]["name"] = new
json.dump(definition, open(path, "w"))
schema = json.load(open(f"{d}/schema.json"))
name = "".join(w[:1].upper() + w[1:] for w in label.split("_"))
t = schema["definitions"][name]
t["properties"][new] = t["properties"].pop(old)
t["required"] = [new if r == old else r for r in t["required"]]
json.dump(schema, open(f"{d}/schema.json", "w"))
PY
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

size() { # target dir: lines and bytes of the generated code per type
  local files
  files=$(find "$1" -path '*/out/*' \( -name 'records.rs' -o -path '*/records.d/*.rs' -o -name 'codegen.rs' \) | sort -u)
  # shellcheck disable=SC2086
  local lines bytes
  lines=$(cat $files | wc -l)
  bytes=$(cat $files | wc -c)
  printf '%d lines / %.1f KB' "$((lines / types))" "$(echo "$bytes / $types / 1024" | bc -l)"
}

rounds=${ROUNDS:-3}
echo "| corpus | generator | code per type | cold, dev | one edit, dev | cold, release | one edit, release |"
echo "|---|---|---|---|---|---|---|"
for corpus in $corpora; do
  declare -A times=() sized=()
  for profile in dev release; do
    flag=""; [ "$profile" = release ] && flag="--release"
    for generator in ours typify; do
      dir="$work/$corpus-$generator"
      rm -rf "$dir"
      "$write_corpus" "$corpus" "$types" "$dir"
      "${generator}_crate" "$dir"
      cp "$repo/Cargo.lock" "$dir/Cargo.lock"
      # Dependencies are fetched before the clock starts.
      (cd "$dir" && cargo fetch --quiet)
      cold=$(cd "$dir" && CARGO_TARGET_DIR="$dir/target" seconds cargo build $flag)
      times[$generator]="${times[$generator]:-} | ${cold} s"
      [ -n "${sized[$generator]:-}" ] || sized[$generator]=$(size "$dir/target")
    done
    # One edit, built again: the two generators alternate, $rounds times.
    declare -A edits=()
    for round in $(seq "$rounds"); do
      for generator in ours typify; do
        dir="$work/$corpus-$generator"
        edit "$dir" "renamedField$round"
        took=$(cd "$dir" && CARGO_TARGET_DIR="$dir/target" seconds cargo build $flag)
        edits[$generator]="${edits[$generator]:-} $took"
      done
    done
    for generator in ours typify; do
      times[$generator]="${times[$generator]} | $(tr ' ' '\n' <<<"${edits[$generator]}" | grep . | median) s"
    done
    unset edits
  done
  for generator in ours typify; do
    echo "| $corpus | $generator | ${sized[$generator]}${times[$generator]} |"
  done
  unset times sized
done
