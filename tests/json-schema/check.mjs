// Checks the shipped JSON Schemas with ajv (2020-12 dialect, strict mode,
// ajv-formats) against tests/json-schema/cases.json.
//
//     node tests/json-schema/check.mjs --generated DIR
//
// Run by .ci/json-schemas, which fills DIR with rendered bodies and sample
// rows. Prints one line per failed expectation and exits 1 if there is any.

import { readFileSync, readdirSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;
const ajvVersion = require("ajv/package.json").version;

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const generated = process.argv[process.argv.indexOf("--generated") + 1];
if (!generated || process.argv.indexOf("--generated") < 0) {
  console.error("usage: node check.mjs --generated DIR");
  process.exit(2);
}

const load = (path) => JSON.parse(readFileSync(path, "utf8"));

// Only `dir/*.json`-style globs are used in cases.json.
function files(patterns) {
  const out = [];
  for (let pattern of patterns) {
    let base = ROOT;
    if (pattern.startsWith("generated/")) {
      base = generated;
      pattern = pattern.slice("generated/".length);
    }
    const dir = join(base, dirname(pattern));
    const name = basename(pattern);
    const matched = name.includes("*")
      ? readdirSync(dir)
          .filter((f) => f.endsWith(name.slice(name.indexOf("*") + 1)) && f.startsWith(name.slice(0, name.indexOf("*"))))
          .sort()
          .map((f) => join(dir, f))
      : [join(dir, name)];
    if (matched.length === 0) throw new Error(`no files match ${pattern}`);
    out.push(...matched);
  }
  return out;
}

function newAjv() {
  // `discriminator`: the Sample variants name `record_label` (docs/json-schemas.md).
  const ajv = new Ajv2020({ strict: true, allErrors: true, discriminator: true });
  addFormats(ajv);
  return ajv;
}

// A schema named generated/… is in the --generated folder, others in schema/.
const schemaPath = (file) =>
  file.startsWith("generated/") ? join(generated, file.slice("generated/".length)) : join(ROOT, "schema", file);

const compiled = new Map();
function validator(name, stem = "") {
  const file = name.replace("{stem}", stem);
  if (!compiled.has(file)) compiled.set(file, newAjv().compile(load(schemaPath(file))));
  return compiled.get(file);
}

function setPointer(doc, pointer, value) {
  const parts = pointer.split("/").slice(1).map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"));
  let target = doc;
  for (const part of parts.slice(0, -1)) target = target[part];
  target[parts.at(-1)] = value;
}

const cases = load(join(ROOT, "tests", "json-schema", "cases.json"));
const failures = [];
let checks = 0;
function expect(valid, validate, instance, what) {
  checks += 1;
  const ok = validate(instance);
  if (valid && !ok) {
    const e = validate.errors[0];
    failures.push(`${what}: rejected: ${e.message} at ${e.instancePath}`);
  }
  if (!valid && ok) failures.push(`${what}: accepted`);
}
const items = (c, path) => (c.each_item ? load(path).map((v, i) => [i, v]) : [[null, load(path)]]);
const stemOf = (path) => basename(path).replace(/\.json$/, "");
const rel = (path) => relative(ROOT, path);

for (const c of cases.valid) {
  for (const path of files(c.instances)) {
    const v = validator(c.schema, stemOf(path));
    for (const [i, instance] of items(c, path)) expect(true, v, instance, `${rel(path)}${i === null ? "" : `[${i}]`}`);
  }
}

for (const c of cases.invalid) {
  for (const path of files(c.instances)) {
    const v = validator(c.schema, stemOf(path));
    let instance;
    try {
      instance = load(path);
    } catch {
      continue; // not JSON at all: rejected before any schema
    }
    const each = c.each_item ? instance.map((v, i) => [i, v]) : [[null, instance]];
    for (const [i, one] of each) {
      expect((c.except ?? []).includes(basename(path)), v, one, i === null ? rel(path) : `${rel(path)}[${i}]`);
    }
  }
}

for (const c of cases.mutations) {
  const v = validator(c.schema);
  for (const path of files(c.instances)) {
    for (const [pointer, value] of c.set) {
      const instance = load(path);
      setPointer(instance, pointer, value);
      expect(false, v, instance, `${rel(path)} with ${pointer} = ${JSON.stringify(value)}`);
    }
  }
}

for (const c of cases.required) {
  for (const path of files(c.instances)) {
    const stem = stemOf(path);
    const v = validator(c.schema, stem);
    const required = load(schemaPath(c.schema.replace("{stem}", stem))).required;
    for (const [i, row] of items(c, path)) {
      for (const key of required) {
        const missing = { ...row };
        delete missing[key];
        expect(false, v, missing, `${stem}[${i}] without ${key}`);
        expect(false, v, { ...row, [key]: [1, 2] }, `${stem}[${i}] with ${key} = [1, 2]`);
      }
    }
  }
}

for (const c of cases.formats) {
  const root = load(join(ROOT, "schema", c.schema));
  let sub = root;
  for (const part of c.at.split("/").slice(1)) sub = sub[part];
  const v = newAjv().compile({ $schema: root.$schema, ...sub });
  for (const text of c.good) expect(true, v, text, `${c.at} ${JSON.stringify(text)}`);
  for (const text of c.bad) expect(false, v, text, `${c.at} ${JSON.stringify(text)}`);
}

for (const line of failures) console.log(`ajv ${ajvVersion}: ${line}`);
console.log(`ajv ${ajvVersion}: ${checks - failures.length}/${checks} expectations hold`);
process.exit(failures.length ? 1 : 0);
