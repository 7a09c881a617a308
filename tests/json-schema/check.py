"""Checks the shipped JSON Schemas with python-jsonschema (2020-12, with
format checking) against tests/json-schema/cases.json.

    python3 tests/json-schema/check.py --generated DIR

Run by .ci/json-schemas, which fills DIR with rendered bodies and sample
rows. Prints one line per failed expectation and exits 1 if there is any.
"""

import argparse
import copy
import glob
import json
import os
import sys

import jsonschema

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))


def load(path):
    with open(path, "rb") as f:
        return json.loads(f.read().decode("utf-8"))


def files(patterns, generated):
    out = []
    for pattern in patterns:
        base = generated if pattern.startswith("generated/") else ROOT
        pattern = pattern[len("generated/"):] if pattern.startswith("generated/") else pattern
        matched = sorted(glob.glob(os.path.join(base, pattern)))
        if not matched:
            raise SystemExit(f"no files match {pattern}")
        out.extend(matched)
    return out


GENERATED = None  # the --generated folder; a schema named generated/… is there


def validator(name, stem=None):
    name = name.replace("{stem}", stem or "")
    if name.startswith("generated/"):
        schema = load(os.path.join(GENERATED, name[len("generated/"):]))
    else:
        schema = load(os.path.join(ROOT, "schema", name))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def items(case, path):
    value = load(path)
    return list(enumerate(value)) if case.get("each_item") else [(None, value)]


def set_pointer(document, pointer, value):
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    target = document
    for part in parts[:-1]:
        target = target[int(part)] if isinstance(target, list) else target[part]
    last = parts[-1]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value


def resolve(schema, pointer):
    for part in pointer.split("/")[1:]:
        schema = schema[part]
    return schema


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--generated", required=True)
    args = parser.parse_args()
    global GENERATED
    GENERATED = args.generated
    cases = load(os.path.join(ROOT, "tests", "json-schema", "cases.json"))
    failures, checks = [], 0

    def expect(valid, v, instance, what):
        nonlocal checks
        checks += 1
        errors = list(v.iter_errors(instance))
        if valid and errors:
            failures.append(f"{what}: rejected: {errors[0].message} at {list(errors[0].absolute_path)}")
        if not valid and not errors:
            failures.append(f"{what}: accepted")

    for case in cases["valid"]:
        for path in files(case["instances"], args.generated):
            stem = os.path.splitext(os.path.basename(path))[0]
            v = validator(case["schema"], stem)
            for i, instance in items(case, path):
                expect(True, v, instance, f"{os.path.relpath(path, ROOT)}{'' if i is None else f'[{i}]'}")

    for case in cases["invalid"]:
        for path in files(case["instances"], args.generated):
            name = os.path.basename(path)
            v = validator(case["schema"], os.path.splitext(name)[0])
            try:
                instance = load(path)
            except (ValueError, UnicodeDecodeError, RecursionError):
                continue  # not JSON at all: rejected before any schema
            instances = list(enumerate(instance)) if case.get("each_item") else [(None, instance)]
            for i, each in instances:
                what = f"{os.path.relpath(path, ROOT)}{'' if i is None else f'[{i}]'}"
                expect(name in case.get("except", []), v, each, what)

    for case in cases["mutations"]:
        v = validator(case["schema"])
        for path in files(case["instances"], args.generated):
            for pointer, value in case["set"]:
                instance = copy.deepcopy(load(path))
                set_pointer(instance, pointer, value)
                expect(False, v, instance, f"{os.path.relpath(path, ROOT)} with {pointer} = {json.dumps(value)}")

    for case in cases["required"]:
        for path in files(case["instances"], args.generated):
            stem = os.path.splitext(os.path.basename(path))[0]
            v = validator(case["schema"], stem)
            for i, row in items(case, path):
                for key in v.schema["required"]:
                    missing = {k: x for k, x in row.items() if k != key}
                    expect(False, v, missing, f"{stem}[{i}] without {key}")
                    retyped = dict(row, **{key: [1, 2]})
                    expect(False, v, retyped, f"{stem}[{i}] with {key} = [1, 2]")

    for case in cases["formats"]:
        root = load(os.path.join(ROOT, "schema", case["schema"]))
        sub = resolve(root, case["at"])
        cls = jsonschema.validators.validator_for(root)
        v = cls(sub, format_checker=cls.FORMAT_CHECKER)
        for text in case["good"]:
            expect(True, v, text, f"{case['at']} {json.dumps(text)}")
        for text in case["bad"]:
            expect(False, v, text, f"{case['at']} {json.dumps(text)}")

    for line in failures:
        print(f"python-jsonschema {jsonschema_version()}: {line}")
    print(f"python-jsonschema {jsonschema_version()}: {checks - len(failures)}/{checks} expectations hold")
    return 1 if failures else 0


def jsonschema_version():
    from importlib.metadata import version

    return version("jsonschema")


if __name__ == "__main__":
    sys.exit(main())
