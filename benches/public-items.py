#!/usr/bin/env python3
"""Counts the public API of each published crate: every path a user can
name from the crate root (modules, types, traits, functions, constants,
statics, macros, re-exports of other crates' items) plus every public
method and associated constant of the crate's own types and traits.
Variants and fields are not counted; #[doc(hidden)] items are not public
API and rustdoc leaves them out.

    python3 benches/public-items.py [WORKSPACE_DIR]   # needs a nightly toolchain (rustdoc JSON)
"""
import json, os, subprocess, sys

CRATES = ["foundry-catalog-core", "foundry-catalog-build", "foundry-catalog", "foundry-catalog-serving",
          "foundry-catalog-server"]

def count(doc):
    index = doc["index"]
    seen_paths = 0
    reexports = 0
    visited = set()
    def item_kind(item):
        inner = item["inner"]
        return next(iter(inner)) if isinstance(inner, dict) else inner
    def assoc(item):
        kind = item_kind(item)
        n = 0
        if kind in ("struct", "enum", "union"):
            for impl_id in item["inner"][kind].get("impls", []):
                impl = index.get(str(impl_id))
                if not impl:
                    continue
                body = impl["inner"]["impl"]
                if body.get("trait") is not None or body.get("is_synthetic") or body.get("blanket_impl") is not None:
                    continue
                for member in body["items"]:
                    m = index.get(str(member))
                    if m and m.get("visibility") == "public":
                        n += 1
        elif kind == "trait":
            n += len(item["inner"]["trait"]["items"])
        return n
    def walk(module_id):
        nonlocal seen_paths, reexports
        module = index[str(module_id)]
        for child in module["inner"]["module"]["items"]:
            item = index.get(str(child))
            if item is None:
                continue
            kind = item_kind(item)
            if kind == "use":
                use = item["inner"]["use"]
                target = use.get("id")
                if target is not None and str(target) in index:
                    t = index[str(target)]
                    seen_paths += 1
                    if item_kind(t) == "module" and target not in visited:
                        visited.add(target); walk(target)
                    elif str(target) not in visited:
                        visited.add(str(target)); seen_paths += assoc(t)
                else:
                    reexports += 1
                continue
            if kind in ("impl",):
                continue
            seen_paths += 1
            if kind == "module":
                if child not in visited:
                    visited.add(child); walk(child)
            elif str(child) not in visited:
                visited.add(str(child)); seen_paths += assoc(item)
    walk(doc["root"])
    return seen_paths, reexports

def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
    for crate in CRATES:
        if not os.path.exists(os.path.join(root, crate if crate != "foundry-catalog" else ".", "Cargo.toml")):
            continue
        subprocess.run(["cargo", "+nightly", "rustdoc", "-q", "-p", crate, "--all-features", "--lib", "--",
                        "-Z", "unstable-options", "--output-format", "json"], cwd=root, check=True,
                       env={**os.environ, "CARGO_TARGET_DIR": target})
        doc = json.load(open(os.path.join(target, "doc", crate.replace("-", "_") + ".json")))
        own, reexports = count(doc)
        print(f"{crate}: {own} public items, {reexports} re-exported from other crates")

main()
