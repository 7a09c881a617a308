#!/usr/bin/env python3
"""The schema_hash test vectors under an implementation of their own: the
recipe of docs/schema-hash.md. Each vector is a definition with the
canonical JSON and schema_hash it must give; this script recomputes both
(with --write, it fills them in for a new vector). tests/generator/vectors.rs
holds foundry-catalog to the same files."""
import hashlib, json, pathlib, sys

def canon(f, named=True):
    c = {"type": f["type"], **({"name": f["name"], "required": f["required"]} if named else {})}
    c.update({k: f[k] for k in ("min_items", "max_items") if k in f})
    if f.get("nullable"):
        c["nullable"] = True
    if "enum" in f:
        c["enum"] = sorted({v if isinstance(v, str) else v["value"] for v in f["enum"]})
    if "items" in f:
        c["items"] = canon(f["items"], named=False)
    if "fields" in f:
        c["fields"] = [canon(g) for g in f["fields"]]
    return c

def canonical(d):
    obj = {"fields": [canon(f) for f in d["fields"]], "record_label": d["record_label"]}
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

def main():
    write = "--write" in sys.argv
    failed = 0
    files = sorted(pathlib.Path(__file__).parent.glob("*.json"))
    for path in files:
        vector = json.loads(path.read_text())
        text = canonical(vector["definition"])
        digest = hashlib.sha256(text.encode()).hexdigest()[: vector["definition"].get("digest_length", 64)]
        if write:
            vector["canonical"], vector["schema_hash"] = text, digest
            path.write_text(json.dumps(vector, indent=2, ensure_ascii=False) + "\n")
        elif (vector["canonical"], vector["schema_hash"]) != (text, digest):
            print(f"{path.name}: expected {vector['schema_hash']}, computed {digest}\n  {text}", file=sys.stderr)
            failed += 1
    print(f"schema_hash vectors (Python recipe): {len(files) - failed}/{len(files)} hold")
    return 1 if failed or not files else 0

sys.exit(main())
