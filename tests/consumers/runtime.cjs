// The runtime half of two TypeScript tools' checks (tests/consumers/matrix.py),
// on their generated code compiled to CommonJS:
//
//   node runtime.cjs convert MODULE_JS FUNCTION OUT.json BODY.json...
//     quicktype: its default output parses through a generated converter
//     (Convert.toGenerated), which checks the JSON against the types at run
//     time (and makes Date objects of date-times, as its types say). Writes
//     {BODY.json: null when the converter returns, else its error} to OUT.json.
//
//   node runtime.cjs map MODULE_JS FUNCTION OUT_DIR BODY.json...
//     openapi-generator typescript-fetch: the client hands its readers each
//     body mapped by ProductResponseFromJSON (wire names to its property
//     names, date-time strings to Date), with no check. Writes that value as
//     a TypeScript expression to OUT_DIR/<body name>.expr.ts (or the error
//     to <body name>.error.txt), for tsc to judge against ProductResponse.
'use strict';
const fs = require('fs');
const path = require('path');

const [mode, moduleJs, functionPath, out, ...bodies] = process.argv.slice(2);
const generated = require(path.resolve(moduleJs));
// FUNCTION may be a dotted path (Convert.toGenerated): call it on its owner.
const owner = functionPath.split('.').slice(0, -1).reduce((o, k) => o[k], generated);
const fn = functionPath.split('.').reduce((o, k) => o[k], generated);
if (typeof fn !== 'function') throw new Error(`${functionPath} is not a function of ${moduleJs}`);

function literal(value, depth) {
  const pad = '  '.repeat(depth + 1);
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (value instanceof Date) return `new Date(${Number.isNaN(value.getTime()) ? 'NaN' : JSON.stringify(value.toISOString())})`;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => pad + literal(v, depth + 1)).join(',\n')}\n${'  '.repeat(depth)}]`;
  }
  if (typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 0) return '{}';
    return `{\n${keys.map((k) => `${pad}${JSON.stringify(k)}: ${literal(value[k], depth + 1)}`).join(',\n')}\n${'  '.repeat(depth)}}`;
  }
  return JSON.stringify(value);
}

const verdicts = {};
for (const body of bodies) {
  const text = fs.readFileSync(body, 'utf8');
  const name = path.basename(body, '.json');
  if (mode === 'convert') {
    try {
      fn.call(owner, text);
      verdicts[body] = null;
    } catch (error) {
      verdicts[body] = String((error && error.message) || error);
    }
  } else if (mode === 'map') {
    try {
      fs.writeFileSync(path.join(out, `${name}.expr.ts`), literal(fn.call(owner, JSON.parse(text)), 0));
    } catch (error) {
      fs.writeFileSync(path.join(out, `${name}.error.txt`), String((error && error.stack) || error));
    }
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
}
if (mode === 'convert') fs.writeFileSync(out, JSON.stringify(verdicts));
