"""Writes a catalog of N product manifests for load tests: copies of the
three example manifests (examples/catalog) with numbered slugs and titles,
so every product is valid and every body differs.

    python3 benches/make-catalog.py 10000 /tmp/catalog-10k
"""

import glob
import json
import os
import sys


def main():
    count, out = int(sys.argv[1]), sys.argv[2]
    root = os.path.join(os.path.dirname(__file__), "..")
    examples = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(root, "examples", "catalog", "*.json")))]
    os.makedirs(out, exist_ok=True)
    for i in range(count):
        manifest = dict(examples[i % len(examples)])
        manifest["slug"] = f"{manifest['slug']}-{i}"
        manifest["title"] = f"{manifest['title']} {i}"
        with open(os.path.join(out, manifest["slug"] + ".json"), "w") as f:
            json.dump(manifest, f)


if __name__ == "__main__":
    main()
