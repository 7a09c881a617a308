#!/usr/bin/env python3
"""The schema_hash test vectors under an implementation of their own: the
recipe of docs/schema-hash.md. Each vector is a definition with the
canonical JSON and schema_hash it must give; this script recomputes both
(with --write, it fills them in for a new vector). foundry-catalog-build/tests/generator/vectors.rs
holds foundry-catalog to the same files."""
import hashlib, json, pathlib, struct, sys

def es_number(x):
    """A number as ECMAScript writes it (RFC 8785 3.2.2.3), from Python's shortest repr."""
    x = float(x)
    if x == 0:
        return "0"
    digits, _, exp = repr(abs(x)).partition("e")
    whole, _, frac = digits.partition(".")
    frac = frac.rstrip("0") if whole != "0" or frac.strip("0") else ""
    n = len(whole) + int(exp or 0) if whole != "0" else int(exp or 0) - (len(frac) - len(frac.lstrip("0")))
    digits = (whole + frac).strip("0") if whole != "0" else frac.lstrip("0")
    k, sign = len(digits), "-" if x < 0 else ""
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    return sign + digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if n > 0 else "-") + str(abs(n - 1))

def canon(f, named=True):
    c = {"type": f["type"], **({"name": f["name"], "required": f["required"]} if named else {})}
    c.update({k: f[k] for k in ("min_items", "max_items", "minimum", "maximum") if k in f})
    if f.get("nullable"):
        c["nullable"] = True
    if "enum" in f:
        c["enum"] = sorted({v if isinstance(v, str) else v["value"] for v in f["enum"]})
    if "items" in f:
        c["items"] = canon(f["items"], named=False)
    if "fields" in f:
        c["fields"] = [canon(g) for g in f["fields"]]
    return c

def jcs(v):
    """RFC 8785: sorted keys (these are ASCII), no whitespace, ECMAScript numbers."""
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k) + ":" + jcs(v[k]) for k in sorted(v)) + "}"
    if isinstance(v, list):
        return "[" + ",".join(jcs(x) for x in v) + "]"
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return es_number(v)
    return json.dumps(v, ensure_ascii=False)

def canonical(d):
    return jcs({"fields": [canon(f) for f in d["fields"]], "record_label": d["record_label"]})

RFC_8785_NUMBERS = {  # Appendix B: IEEE 754 bits and their JCS text
    "0000000000000000": "0", "8000000000000000": "0", "0000000000000001": "5e-324",
    "8000000000000001": "-5e-324", "7fefffffffffffff": "1.7976931348623157e+308",
    "ffefffffffffffff": "-1.7976931348623157e+308", "4340000000000000": "9007199254740992",
    "c340000000000000": "-9007199254740992", "4430000000000000": "295147905179352830000",
    "44b52d02c7e14af5": "9.999999999999997e+22", "44b52d02c7e14af6": "1e+23",
    "44b52d02c7e14af7": "1.0000000000000001e+23", "444b1ae4d6e2ef4e": "999999999999999700000",
    "444b1ae4d6e2ef4f": "999999999999999900000", "444b1ae4d6e2ef50": "1e+21",
    "3eb0c6f7a0b5ed8c": "9.999999999999997e-7", "3eb0c6f7a0b5ed8d": "0.000001",
    "41b3de4355555553": "333333333.3333332", "41b3de4355555554": "333333333.33333325",
    "41b3de4355555555": "333333333.3333333", "41b3de4355555556": "333333333.3333334",
    "41b3de4355555557": "333333333.33333343", "becbf647612f3696": "-0.0000033333333333333333",
    "43143ff3c1cb0959": "1424953923781206.2",
}

def main():
    write = "--write" in sys.argv
    failed = 0
    for bits, text in RFC_8785_NUMBERS.items():
        if es_number(struct.unpack(">d", bytes.fromhex(bits))[0]) != text:
            print(f"es_number({bits}) is not {text}", file=sys.stderr)
            failed += 1
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
