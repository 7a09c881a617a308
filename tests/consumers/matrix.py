#!/usr/bin/env python3
"""Judges what .ci/consumers generated: the consumer matrix.

For each schema set (a folder WORK/SET with schema/, bodies/ and gen/<tool>/
that .ci/consumers filled) and each tool that generated code there:
  - the generated code compiles (TypeScript: tsc --strict) or imports (Python);
  - every body in bodies/ is accepted by the generated types;
  - three probes, each a body with one fault, are refused or not:
      wrong_row    data.sample.rows[0] replaced by a row of another record type
      bogus_enum   data.marketplace_availability[0].status (else data.route) = "bogus"
      missing_key  data.slug deleted
and compares the probes' verdicts with tests/consumers/expectations.json.

Exits 1 on a generation failure, generated code that does not compile or
import, a body refused, or a probe verdict other than the expected one
(either way: a probe newly caught is a change to record too). Prints the
measured matrix as Markdown for docs/json-schemas.md.

    python3 tests/consumers/matrix.py --work WORK --venv VENV [--set NAME[:PROBE_BASE]]...

PROBE_BASE is the body the probes are made from (default: the first body);
the row of probe wrong_row comes from the first other body of another
record type.

TypeScript: a body is accepted when `const body: <root type> = <body>;`
compiles under tsc --strict (an annotated object literal, so excess keys
are errors too). Each body and probe is a file of its own in one tsc
program per tool, and tsc's errors are attributed by file. Two tools'
readers hold something else than the JSON, and are judged on that
(tests/consumers/runtime.cjs, on the generated code compiled to CommonJS):
quicktype's default output, by its own converter Convert.toGenerated
(which checks the JSON at run time and makes Date objects); the
typescript-fetch client, by typing what its ProductResponseFromJSON makes
of the body (its names, Date objects) as ProductResponse.
Python: tests/consumers/pycheck.py, run with the venv's interpreter.
"""

import argparse
import concurrent.futures
import copy
import json
import os
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent

# (key, what it reads, how it is judged). The key names the tool in
# expectations.json and in .ci/consumers (which generates into gen/<key>).
TOOLS = [
    ("openapi-typescript", "openapi.json", "ts"),
    ("json-schema-to-typescript", "product-response.schema.json", "ts"),
    ("quicktype", "product-response.schema.json", "ts-convert"),
    ("quicktype-unions", "product-response.schema.json", "ts"),
    ("openapi-generator-typescript-fetch", "openapi.json", "ts-fetch"),
    ("datamodel-code-generator", "product-response.schema.json", "py"),
    ("openapi-generator-python", "openapi.json", "py"),
    ("openapi-python-client", "openapi.json", "py"),
]
# How the table names each tool: its package (npm or PyPI), whose pinned
# version it shows, and what .ci/consumers asks of it beyond the defaults.
LABELS = {
    "openapi-typescript": ("openapi-typescript", ""),
    "json-schema-to-typescript": ("json-schema-to-typescript", ""),
    "quicktype": ("quicktype", ""),
    "quicktype-unions": ("quicktype", "--no-date-times --prefer-unions"),
    "openapi-generator-typescript-fetch": ("openapi-generator-cli", "-g typescript-fetch"),
    "datamodel-code-generator": ("datamodel-code-generator", "--output-model-type pydantic_v2.BaseModel"),
    "openapi-generator-python": ("openapi-generator-cli", "-g python"),
    "openapi-python-client": ("openapi-python-client", ""),
}
# A case's verdict when the tool's code could not judge it (it did not
# import, or its runtime half did not run): neither accepted nor refused.
NOT_JUDGED = "(not judged)"
PROBES = [
    ("wrong_row", "(a) row of another record type"),
    ("bogus_enum", "(b) value outside a closed set"),
    ("missing_key", "(c) required key missing"),
]
TSC_OPTIONS = [
    "--strict", "--noEmit", "--pretty", "false",
    "--target", "es2022", "--lib", "es2022,dom",
    "--module", "esnext", "--moduleResolution", "bundler",
]
TSC_ERROR = re.compile(r"^(?P<file>.+?)\((?P<line>\d+),(?P<col>\d+)\): error (?P<code>TS\d+): (?P<message>.*)$")


def versions():
    """tool -> pinned version, from package.json and requirements.txt."""
    npm = json.loads((HERE / "package.json").read_text())["dependencies"]
    pip = {}
    for line in (HERE / "requirements.txt").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==", 1)
            pip[name.strip().lower()] = version.strip()
    return {tool: npm.get(package) or pip.get(package.lower(), "?") for tool, (package, _) in LABELS.items()}


# ---------------------------------------------------------------- probes


def make_probes(bodies, out, base_name):
    """Writes the three probes made from body base_name into out/; returns {probe: path}."""
    out.mkdir(parents=True, exist_ok=True)
    loaded = {path.stem: json.loads(path.read_text()) for path in bodies}
    base = loaded[base_name]
    label = base["data"]["sample"]["record_label"]
    others = [name for name, body in loaded.items() if body["data"]["sample"]["record_label"] != label and body["data"]["sample"]["rows"]]
    if not others:
        raise SystemExit(f"no body of a record type other than {label} to take a row from")
    donor = loaded[others[0]]

    probes = {}
    wrong_row = copy.deepcopy(base)
    wrong_row["data"]["sample"]["rows"][0] = copy.deepcopy(donor["data"]["sample"]["rows"][0])
    probes["wrong_row"] = (wrong_row, f"{base_name} with rows[0] from {others[0]} ({donor['data']['sample']['record_label']})")

    bogus = copy.deepcopy(base)
    if bogus["data"]["marketplace_availability"]:
        bogus["data"]["marketplace_availability"][0]["status"] = "bogus"
        where = "data.marketplace_availability[0].status"
    else:
        bogus["data"]["route"] = "bogus"
        where = "data.route"
    probes["bogus_enum"] = (bogus, f'{base_name} with {where} = "bogus"')

    missing = copy.deepcopy(base)
    del missing["data"]["slug"]
    probes["missing_key"] = (missing, f"{base_name} without data.slug")

    paths = {}
    for name, (body, _) in probes.items():
        path = out / f"probe_{name}.json"
        path.write_text(json.dumps(body, indent=2))
        paths[name] = path
    return paths, {name: what for name, (_, what) in probes.items()}


# ---------------------------------------------------------------- TypeScript


def tsc(node_bin, cwd, files, options=TSC_OPTIONS):
    """Runs tsc on files; returns {absolute file: [error, ...]} (continuation lines folded in)."""
    run = subprocess.run([str(node_bin / "tsc"), *options, *map(str, files)], cwd=cwd, capture_output=True, text=True)
    errors = {}
    current = None
    sources = {}
    for line in (run.stdout + run.stderr).splitlines():
        match = TSC_ERROR.match(line)
        if match:
            current = str((pathlib.Path(cwd) / match["file"]).resolve())
            # The line tsc points at, so that an error in a body says which key.
            if current not in sources:
                sources[current] = pathlib.Path(current).read_text().splitlines() if pathlib.Path(current).is_file() else []
            at = int(match["line"]) - 1
            source = sources[current][at].strip() if at < len(sources[current]) else ""
            source = source if len(source) <= 100 else source[:100] + " …"
            errors.setdefault(current, []).append(
                f"{match['file']}({match['line']},{match['col']}): {match['code']}: {match['message']}" + (f"   [at: {source}]" if source else ""))
        elif current and line.startswith(" "):
            errors[current][-1] += "\n" + line
        elif line.strip():
            errors.setdefault("(tsc)", []).append(line)
    if run.returncode != 0 and not errors:
        errors["(tsc)"] = [f"tsc exited {run.returncode}"]
    return errors


def root_type(tool, schema):
    """The name a tool gives the type of the whole document."""
    if tool.startswith("quicktype"):
        return "Generated"  # quicktype names the top level after its output file, generated.ts
    # json-schema-to-typescript: the schema's title, as an identifier in PascalCase.
    title = json.loads(schema.read_text()).get("title")
    if not title:
        raise LookupError(f"{schema} has no title to name its type")
    return "".join(word[:1].upper() + word[1:] for word in re.split(r"[^A-Za-z0-9]+", title) if word)


def import_path(source, check_dir):
    relative = os.path.relpath(source, check_dir)
    return relative if relative.startswith(".") else "./" + relative


def check_ts(tool, gen, schema, check, cases, node_bin):
    """Literal-typed bodies against one generated .ts file. Returns (compile errors, {case: None|error})."""
    check.mkdir(parents=True, exist_ok=True)
    generated = gen / "generated.ts"
    module = import_path(generated.with_suffix(""), check)
    if tool == "openapi-typescript":
        prelude = f"import type {{ components }} from {json.dumps(module)};\ntype Body = components['schemas']['ProductResponse'];\n"
    else:
        prelude = f"import type {{ {root_type(tool, schema)} as Body }} from {json.dumps(module)};\n"
    files = {}
    for name, path in cases.items():
        file = check / f"case_{name}.ts"
        file.write_text(f"{prelude}export const body: Body = {path.read_text()};\n")
        files[name] = file
    errors = tsc(node_bin, check, [generated, *files.values()])
    case_files = {str(f.resolve()) for f in files.values()}
    compile_errors = [e for file, list_ in errors.items() if file not in case_files for e in list_]
    verdicts = {name: "\n".join(errors[str(f.resolve())]) if str(f.resolve()) in errors else None for name, f in files.items()}
    return compile_errors, verdicts


def compile_to_js(gen, entry, js, node_bin):
    """tsc --strict on the generated code, emitting CommonJS to js/ (emitted even with errors); returns the errors."""
    emit = ["--strict", "--pretty", "false", "--target", "es2022", "--lib", "es2022,dom",
            "--module", "commonjs", "--moduleResolution", "node10", "--outDir", str(js)]
    errors = tsc(node_bin, gen, [gen / entry], emit)
    return [e for list_ in errors.values() for e in list_]


def check_ts_convert(gen, check, cases, node_bin):
    """quicktype, defaults: compile its output and parse each body with its
    Convert.toGenerated, which checks the JSON against the types at run time."""
    check.mkdir(parents=True, exist_ok=True)
    compile_errors = compile_to_js(gen, "generated.ts", check / "js", node_bin)
    out = check / "verdicts.json"
    node = subprocess.run(["node", str(HERE / "runtime.cjs"), "convert", str(check / "js" / "generated.js"),
                           "Convert.toGenerated", str(out), *[str(p) for p in cases.values()]], capture_output=True, text=True)
    if node.returncode != 0:
        return compile_errors + [f"Convert.toGenerated did not run: {node.stderr.strip()}"], {name: NOT_JUDGED for name in cases}
    by_path = json.loads(out.read_text())
    return compile_errors, {name: by_path[str(path)] for name, path in cases.items()}


def check_ts_fetch(gen, check, cases, node_bin):
    """typescript-fetch: compile the client (to CommonJS), map each body with
    ProductResponseFromJSON, and type the result as ProductResponse."""
    check.mkdir(parents=True, exist_ok=True)
    compile_errors = compile_to_js(gen, "index.ts", check / "js", node_bin)
    exprs = check / "exprs"
    exprs.mkdir(exist_ok=True)
    node = subprocess.run(["node", str(HERE / "runtime.cjs"), "map", str(check / "js" / "models" / "index.js"),
                           "ProductResponseFromJSON", str(exprs), *[str(p) for p in cases.values()]],
                          capture_output=True, text=True)
    if node.returncode != 0:
        return compile_errors + [f"ProductResponseFromJSON did not run: {node.stderr.strip()}"], {name: NOT_JUDGED for name in cases}
    module = import_path(gen / "models" / "index", check)
    files, verdicts = {}, {}
    for name, path in cases.items():
        stem = path.stem
        failed = exprs / f"{stem}.error.txt"
        if failed.exists():
            verdicts[name] = "ProductResponseFromJSON threw: " + failed.read_text().splitlines()[0]
            continue
        file = check / f"case_{name}.ts"
        file.write_text(f"import type {{ ProductResponse }} from {json.dumps(module)};\n"
                        f"export const body: ProductResponse = {(exprs / f'{stem}.expr.ts').read_text()};\n")
        files[name] = file
    errors = tsc(node_bin, check, list(files.values()))
    for name, file in files.items():
        key = str(file.resolve())
        verdicts[name] = "\n".join(errors[key]) if key in errors else None
    return compile_errors, verdicts


# ---------------------------------------------------------------- Python


def check_py(tool, gen, schema, cases, venv):
    run = subprocess.run([str(venv / "bin" / "python"), str(HERE / "pycheck.py"), tool, str(gen), str(schema),
                          *[str(p) for p in cases.values()]], capture_output=True, text=True)
    try:
        report = json.loads(run.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return [f"pycheck.py exited {run.returncode}: {run.stderr.strip()}"], {name: NOT_JUDGED for name in cases}, []
    compile_errors = [report["import"]] if report["import"] else []
    by_path = report["bodies"]
    verdicts = {name: by_path.get(str(path), NOT_JUDGED) for name, path in cases.items()}
    return compile_errors, verdicts, report["warnings"]


# ---------------------------------------------------------------- the matrix


def shorten(text, lines=12):
    parts = text.splitlines()
    return "\n".join(parts[:lines] + ([f"… ({len(parts) - lines} more lines)"] if len(parts) > lines else []))


def indent(text, prefix="      "):
    return "\n".join(prefix + line for line in text.splitlines())


def prepare_set(name, folder, base):
    """The bodies and probes of one schema set: (cases {case: path}, base body, lines to print)."""
    bodies = sorted((folder / "bodies").glob("*.json"))
    base = base or bodies[0].stem
    probe_paths, probe_what = make_probes(bodies, folder / "probes", base)
    cases = {f"body_{p.stem}": p for p in bodies} | {f"probe_{k}": v for k, v in probe_paths.items()}
    lines = [f"\n==> schema set '{name}': {len(bodies)} bodies ({', '.join(p.stem for p in bodies)})"]
    lines += [f"    probe {probe}: {what}" for probe, what in probe_what.items()]
    return cases, base, lines


def judge_tool(name, folder, tool, reads, kind, cases, base, expected, node_bin, venv):
    """Every check of one tool on one schema set: (row for the table, failures, lines to print)."""
    lines, failures = [f"\n  -- {name}: {tool} ({reads})"], []
    say = lines.append
    bodies = [case[len("body_"):] for case in cases if case.startswith("body_")]
    gen = folder / "gen" / tool
    status = int((folder / "gen" / f"{tool}.status").read_text().strip() or 1)
    row = {"tool": tool, "reads": reads, "generates": status == 0, "compiles": None,
           "accepted": 0, "bodies": len(bodies), "probes": {}}
    if tool not in expected:
        failures.append(f"{name}: {tool} ran but has no entry in expectations.json")
    if status != 0:
        failures.append(f"{name}: {tool}: generation failed (exit {status}; its output is above)")
        say(f"    generation failed (exit {status})")
        return row, failures, lines
    # The schema's `discriminator` read: a bad row gives one error at its
    # field, not one per Sample variant (docs/json-schemas.md).
    if tool == "datamodel-code-generator":
        code = "".join(path.read_text() for path in sorted(gen.rglob("*.py")))
        if not re.search(r"discriminator=['\"]record_label['\"]", code):
            failures.append(f"{name}: {tool}: Sample is not a union discriminated by record_label")
        else:
            say("    Sample: a union discriminated by record_label")
    warnings = []
    if kind == "ts":
        compile_errors, verdicts = check_ts(tool, gen, folder / "schema" / reads, folder / "check" / tool, cases, node_bin)
    elif kind == "ts-convert":
        compile_errors, verdicts = check_ts_convert(gen, folder / "check" / tool, cases, node_bin)
    elif kind == "ts-fetch":
        compile_errors, verdicts = check_ts_fetch(gen, folder / "check" / tool, cases, node_bin)
    else:
        compile_errors, verdicts, warnings = check_py(tool, gen, folder / "schema" / reads, cases, venv)
    for warning in warnings:
        say(f"    warning on import: {warning}")
    row["compiles"] = not compile_errors
    if compile_errors:
        failures.append(f"{name}: {tool}: the generated code does not {'import' if kind == 'py' else 'compile'}")
        say(f"    generated code: {len(compile_errors)} error(s):")
        for error in compile_errors[:40]:
            say(indent(shorten(error, 6)))
        if len(compile_errors) > 40:
            say(f"      … and {len(compile_errors) - 40} more")
    else:
        say("    generated code " + ("imports" if kind == "py" else "compiles (tsc --strict)"))
    for body in bodies:
        verdict = verdicts[f"body_{body}"]
        if verdict is None:
            row["accepted"] += 1
            say(f"    body {body}: accepted")
        elif verdict == NOT_JUDGED:
            say(f"    body {body}: not judged")
        else:
            failures.append(f"{name}: {tool}: refuses body {body}")
            say(f"    body {body}: REFUSED\n{indent(shorten(verdict))}")
    base_ok = verdicts[f"body_{base}"] is None
    for probe, _ in PROBES:
        verdict = verdicts[f"probe_{probe}"]
        caught = None if not base_ok or verdict == NOT_JUDGED else verdict is not None
        row["probes"][probe] = caught
        want = expected.get(tool, {}).get(probe)
        mark = "" if caught is None or want is None or caught == want else f"  (expected {'refused' if want else 'accepted'})"
        if caught is None:
            say(f"    probe {probe}: not judged (body {base} itself was not accepted)")
        elif caught:
            say(f"    probe {probe}: refused{mark}\n{indent(shorten(verdict, 4))}")
        else:
            say(f"    probe {probe}: accepted{mark}")
        if mark:
            failures.append(f"{name}: {tool}: probe {probe} {'refused' if caught else 'accepted'}, expected {'refused' if want else 'accepted'}")
        elif caught is not None and want is None:
            failures.append(f"{name}: {tool}: probe {probe} has no expectation in expectations.json")
    return row, failures, lines


def markdown(name, rows, pinned):
    yes_no = {True: "yes", False: "**no**", None: "–"}
    verdict = {True: "refused", False: "accepted", None: "–"}
    head = ["Tool", "Reads", "Generates", "Compiles / imports", "Bodies accepted"] + [label for _, label in PROBES]
    lines = [f"Schema set `{name}`:", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        accepted = f"{row['accepted']}/{row['bodies']}" if row["compiles"] is not None else "–"
        package, options = LABELS[row["tool"]]
        tool = f"{package} {pinned[row['tool']]}" + (f" `{options}`" if options else "")
        cells = [tool, f"`{row['reads']}`", yes_no[row["generates"]],
                 yes_no[row["compiles"]], accepted] + [verdict[row["probes"].get(p)] for p, _ in PROBES]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=pathlib.Path, required=True)
    parser.add_argument("--venv", type=pathlib.Path, required=True)
    parser.add_argument("--set", action="append", required=True, help="NAME[:PROBE_BASE]")
    args = parser.parse_args()
    node_bin = HERE / "node_modules" / ".bin"
    expectations = json.loads((HERE / "expectations.json").read_text())
    pinned = versions()

    # Each (set, tool) is judged on its own (tsc, node and python processes),
    # as many at once as there are cores; the output is printed in order.
    sets, jobs, failures = [], [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for spec in args.set:
            name, _, base = spec.partition(":")
            folder = args.work / name
            expected = expectations.get(name, {})
            cases, base, lines = prepare_set(name, folder, base or None)
            ran = [(tool, reads, kind) for tool, reads, kind in TOOLS if (folder / "gen" / f"{tool}.status").exists()]
            failures += [f"{name}: {tool} is in expectations.json but was not run" for tool in sorted(set(expected) - {t for t, *_ in ran})]
            futures = [pool.submit(judge_tool, name, folder, tool, reads, kind, cases, base, expected, node_bin, args.venv)
                       for tool, reads, kind in ran]
            sets.append((name, lines, futures))
        tables = []
        for name, lines, futures in sets:
            print("\n".join(lines))
            rows = []
            for future in futures:
                row, failed, tool_lines = future.result()
                print("\n".join(tool_lines), flush=True)
                rows.append(row)
                failures += failed
            tables.append(markdown(name, rows, pinned))

    print("\n==> the consumer matrix (Markdown, for docs/json-schemas.md)\n")
    print("\n\n".join(tables))
    print()
    if failures:
        print(f"\n{len(failures)} failure(s):", file=sys.stderr)
        for failure in failures:
            print(f"  - {failure}", file=sys.stderr)
        return 1
    print("every tool met its expectations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
