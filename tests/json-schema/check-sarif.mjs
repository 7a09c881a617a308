// Checks SARIF logs against the SARIF 2.1.0 JSON Schema (draft-04) with
// ajv (ajv-draft-04, ajv-formats).
//
//     node tests/json-schema/check-sarif.mjs SCHEMA LOG...
//
// Run by .ci/json-schemas on `foundry-catalog diff --format sarif` output.
// Prints every error and exits 1 if a log does not validate.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const Ajv04 = require("ajv-draft-04").default;
const addFormats = require("ajv-formats").default;

const [schemaPath, ...logs] = process.argv.slice(2);
if (!schemaPath || logs.length === 0) {
  console.error("usage: node check-sarif.mjs SCHEMA LOG...");
  process.exit(2);
}
const load = (path) => JSON.parse(readFileSync(path, "utf8"));
// The schema has a pattern that is not valid with the `u` flag (`…]?$`).
const ajv = new Ajv04({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(load(schemaPath));
let failed = 0;
for (const log of logs) {
  if (validate(load(log))) {
    console.log(`ajv (draft-04): ${log} is a valid SARIF 2.1.0 log`);
  } else {
    failed += 1;
    for (const error of validate.errors) {
      console.log(`ajv (draft-04): ${log}${error.instancePath}: ${error.message}`);
    }
  }
}
process.exit(failed ? 1 : 0);
