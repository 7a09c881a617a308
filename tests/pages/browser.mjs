// The product pages in a real browser: Debian's Chromium, driven by
// playwright-core, with axe-core. Run by .ci/pages against `foundry-catalog
// serve` serving an artifact with pages, and against nginx serving the site
// `foundry-catalog pages` wrote (the expectations: the product bodies
// `foundry-catalog render` wrote).
//
// For every product: the page answers 200; <title>, the canonical link,
// robots and the JSON-LD (parsed, its type and required properties, from
// expectations.json) say what the record says; the sample table's rows,
// as the browser lays them out, are sample.rows; the first call to action
// links to primary_cta; with JavaScript off the heading and the table are
// there; axe-core finds no violation of WCAG 2.1 A/AA, at phone and
// desktop widths, in light and in dark mode; a screenshot of each width is saved. Under the page's
// own headers (axe runs with them bypassed, as it is a script): the
// Content-Security-Policy, nosniff and Referrer-Policy are sent, the
// console has no error (no policy violation), and the page links to the
// site's icon, which decodes as a 32×32 image. That page is opened at the site URL, as a
// reader opens it (its requests answered by --base), so that the policy's
// 'self' is the site the links name.
// An unknown path answers 404 with the not-found page, also checked with
// axe.
//
//   node browser.mjs --base http://127.0.0.1:PORT --bodies DIR --site-url URL --shots DIR
import { readFileSync, readdirSync, mkdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    base: { type: "string" },
    bodies: { type: "string" },
    "site-url": { type: "string" },
    shots: { type: "string" },
    chromium: { type: "string", default: "/usr/bin/chromium" },
  },
});
const expectations = JSON.parse(readFileSync(join(here, "expectations.json"), "utf8"));
const axeSource = readFileSync(join(here, "node_modules/axe-core/axe.min.js"), "utf8");
const records = readdirSync(args.bodies)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(args.bodies, f), "utf8")).data);
mkdirSync(args.shots, { recursive: true });

const failures = [];
const fail = (message) => {
  failures.push(message);
  console.error(`FAIL ${message}`);
};
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const parseOrNull = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

// Whether the JSON-LD has `prop` (`a.b`: b on any of a's items; `a|b`: either).
const holds = (ld, prop) => {
  if (prop.includes("|")) return prop.split("|").some((p) => holds(ld, p));
  if (prop.includes(".")) {
    const [outer, inner] = prop.split(/\.(.*)/s);
    const value = ld[outer];
    const items = Array.isArray(value) ? value : value && typeof value === "object" ? [value] : [];
    return items.some((item) => item && typeof item === "object" && inner in item);
  }
  return prop in ld;
};

// Google's properties of the type against expectations.json: each there
// unless the record cannot fill it (and then not there).
function judgeJsonLd(ld, record) {
  const kind = expectations.json_ld[record.route].type;
  const google = expectations.google[kind];
  const notHeld = expectations.not_held[kind];
  const problems = [];
  for (const prop of [...google.required, ...google.recommended, ...expectations.ours[kind]]) {
    const source = expectations.held_when[prop];
    if (prop in notHeld) {
      if (holds(ld, prop)) problems.push(`holds ${prop}, which the record does not (${notHeld[prop]})`);
    } else if (source && !record[source].length) {
      continue;
    } else if (!holds(ld, prop)) {
      problems.push(`lacks ${prop}`);
    }
  }
  const [low, high] = google.description_length || [1, 1e9];
  const length = (ld.description || "").length;
  if (length < low || length > high) problems.push(`description of ${length} characters, not ${low} to ${high}`);
  return problems;
}

const browser = await chromium.launch({ executablePath: args.chromium, args: ["--no-sandbox"] });
const widths = [
  ["phone", { width: 390, height: 844 }],
  ["desktop", { width: 1280, height: 900 }],
];

async function axe(page, what) {
  await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate(
    (tags) => window.axe.run(document, { runOnly: { type: "tag", values: tags } }),
    expectations.axe_tags,
  );
  for (const v of result.violations) {
    fail(`${what}: axe ${v.id} (${v.impact}): ${v.help}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  }
  return result.passes.length;
}

// A context under the page's own policy, where the site URL's requests
// go to the server under test.
async function policed() {
  const context = await browser.newContext();
  const site = args["site-url"];
  await context.route(`${site}/**`, async (route) => {
    // Unencoded: the fetched body is handed over decoded.
    const headers = { ...route.request().headers(), "accept-encoding": "identity" };
    const response = await route.fetch({ url: args.base + route.request().url().slice(site.length), headers });
    await route.fulfill({ response });
  });
  return context;
}

async function checkPolicy(record) {
  const slug = record.slug;
  const context = await policed();
  const page = await context.newPage();
  page.setDefaultTimeout(5000);
  const said = [];
  page.on("console", (m) => m.type() === "error" && said.push(m.text()));
  page.on("pageerror", (e) => said.push(e.message));
  const response = await page.goto(args["site-url"] + record.canonical_path);
  const headers = response.headers();
  if (!(headers["content-security-policy"] || "").includes("default-src 'none'")) fail(`${slug}: Content-Security-Policy ${headers["content-security-policy"]}`);
  if (headers["x-content-type-options"] !== "nosniff") fail(`${slug}: X-Content-Type-Options ${headers["x-content-type-options"]}`);
  if (!headers["referrer-policy"]) fail(`${slug}: no Referrer-Policy`);
  const link = await page.getAttribute('link[rel="icon"]', "href");
  if (link !== `${args["site-url"]}/favicon.ico`) fail(`${slug}: icon link ${link}`);
  await page.waitForLoadState("load");
  if (said.length) fail(`${slug}: the console says ${said.join(" | ")}`);
  await context.close();
}

// The icon every page links to: an image/x-icon that Chromium decodes as
// 32×32. (Chromium fetches /favicon.ico around request interception, so it
// is fetched here and decoded from its bytes.)
async function checkIcon() {
  const context = await browser.newContext();
  const response = await context.request.get(`${args.base}/favicon.ico`);
  if (response.status() !== 200) fail(`/favicon.ico answered ${response.status()}`);
  if (response.headers()["content-type"] !== "image/x-icon") fail(`/favicon.ico is ${response.headers()["content-type"]}`);
  const bytes = (await response.body()).toString("base64");
  const page = await context.newPage();
  const size = await page.evaluate(
    (bytes) =>
      new Promise((resolve) => {
        const image = new Image();
        image.onload = () => resolve([image.naturalWidth, image.naturalHeight]);
        image.onerror = () => resolve("not an image");
        image.src = `data:image/x-icon;base64,${bytes}`;
      }),
    bytes,
  );
  if (!same(size, [32, 32])) fail(`/favicon.ico decodes as ${JSON.stringify(size)}`);
  await context.close();
}

let axeRules = 0;
async function checkProduct(record) {
  const url = args.base + record.canonical_path;
  const slug = record.slug;
  for (const [name, viewport] of widths) {
    // axe is a script, which the page's policy refuses to run.
    const context = await browser.newContext({ viewport, bypassCSP: true });
    const page = await context.newPage();
    page.setDefaultTimeout(5000);
    const response = await page.goto(url);
    if (response.status() !== 200) fail(`${slug}: ${url} answered ${response.status()}`);
    if (name === "desktop") {
      if ((await page.title()) !== record.seo.title) fail(`${slug}: title is ${await page.title()}`);
      const canonical = await page.getAttribute('link[rel="canonical"]', "href");
      if (canonical !== args["site-url"] + record.canonical_path) fail(`${slug}: canonical ${canonical}`);
      const robots = await page.locator('meta[name="robots"]').evaluateAll((ms) => ms.map((m) => m.content));
      // Kept from search engines: seo.noindex, or not listed publicly (is_visible false).
      const hidden = record.seo.noindex || !record.is_visible;
      if (same(robots, ["noindex"]) !== hidden) fail(`${slug}: robots ${robots}`);
      const scripts = await page.locator('script[type="application/ld+json"]').allTextContents();
      if (scripts.length !== 1) {
        fail(`${slug}: ${scripts.length} JSON-LD scripts`);
      } else {
        const ld = JSON.parse(scripts[0]);
        const expected = expectations.json_ld[record.route];
        if (ld["@type"] !== expected.type) fail(`${slug}: JSON-LD type ${ld["@type"]}`);
        for (const problem of judgeJsonLd(ld, record)) fail(`${slug}: JSON-LD ${problem}`);
      }
      const columns = await page.locator("table.sample thead th").allInnerTexts();
      const names = record.schema_preview.fields.map((f) => f.name);
      if (!same(columns, names)) fail(`${slug}: columns ${columns}`);
      const rows = await page
        .locator("table.sample tbody tr")
        .evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((td) => [td.innerText, td.classList.contains("missing")])));
      // A string is its text; any other value is JSON text that parses to
      // the value (JavaScript cannot tell 1.0 from 1, so it compares values).
      const cellHolds = ([text, missing], row, name) =>
        !(name in row)
          ? missing && text === "—"
          : !missing && (typeof row[name] === "string" ? text === row[name] : same(parseOrNull(text), row[name]));
      const rowsHold =
        rows.length === record.sample.rows.length &&
        record.sample.rows.every((row, i) => rows[i].length === names.length && names.every((n, j) => cellHolds(rows[i][j], row, n)));
      if (!rowsHold) fail(`${slug}: sample rows ${JSON.stringify(rows)} are not sample.rows ${JSON.stringify(record.sample.rows)}`);
      const cta = await page.locator("a.button").first().getAttribute("href").catch(() => null);
      if (cta !== (record.primary_cta ? record.primary_cta.url : null)) fail(`${slug}: call to action ${cta}`);
    }
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    if (overflow) fail(`${slug}: the page scrolls sideways at ${viewport.width} px`);
    axeRules = Math.max(axeRules, await axe(page, `${slug} (${name})`));
    await page.screenshot({ path: join(args.shots, `${slug}-${name}.png`), fullPage: true });
    // The same page for a reader whose system asks for dark pages: axe's
    // contrast rules hold there too.
    await page.emulateMedia({ colorScheme: "dark" });
    await axe(page, `${slug} (${name}, dark)`);
    await context.close();
  }
  // Readable without JavaScript.
  const plain = await browser.newContext({ javaScriptEnabled: false });
  const page = await plain.newPage();
  await page.goto(url);
  if ((await page.locator("h1").innerText()) !== record.title) fail(`${slug}: without JavaScript the heading is missing`);
  if ((await page.locator("table.sample tbody tr").count()) !== record.sample.rows.length) fail(`${slug}: without JavaScript the rows are missing`);
  await plain.close();
}

for (const record of records) {
  // A page that breaks the checks is one failure, and the next is checked.
  await checkProduct(record).catch((e) => fail(`${record.slug}: ${e.message.split("\n")[0]}`));
  await checkPolicy(record).catch((e) => fail(`${record.slug} (policy): ${e.message.split("\n")[0]}`));
}

// The list pages: the home page, each route's first page and a second
// page, a taxonomy's page and a term's; at both widths: 200, no sideways
// scroll, axe in light and in dark mode; the other pages' breadcrumbs lead home; under the pages'
// own policy, a silent console.
async function checkList(path) {
  for (const [name, viewport] of widths) {
    const context = await browser.newContext({ viewport, bypassCSP: true });
    const page = await context.newPage();
    page.setDefaultTimeout(5000);
    const response = await page.goto(args.base + path);
    if (response.status() !== 200) fail(`${path}: answered ${response.status()}`);
    if ((await page.locator("h1").count()) !== 1) fail(`${path}: not one h1`);
    const products = await page.locator("ul.cards a, ul.terms a").count();
    if (!products) fail(`${path}: lists no product or term`);
    if (path !== "/") {
      const crumbs = await page.locator('nav[aria-label="Breadcrumb"] a').evaluateAll((as) => as.map((a) => new URL(a.href).pathname));
      if (crumbs[0] !== "/") fail(`${path}: breadcrumbs ${crumbs}`);
    }
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    if (overflow) fail(`${path}: the page scrolls sideways at ${viewport.width} px`);
    await axe(page, `${path} (${name})`);
    await page.emulateMedia({ colorScheme: "dark" });
    await axe(page, `${path} (${name}, dark)`);
    await page.emulateMedia({ colorScheme: "light" });
    await page.screenshot({ path: join(args.shots, `list${path.replaceAll("/", "-")}-${name}.png`), fullPage: true });
    await context.close();
  }
  const context = await policed();
  const page = await context.newPage();
  const said = [];
  page.on("console", (m) => m.type() === "error" && said.push(m.text()));
  await page.goto(args["site-url"] + path);
  await page.waitForLoadState("load");
  if (said.length) fail(`${path}: the console says ${said.join(" | ")}`);
  await context.close();
}
const lists = ["/", "/datasets", "/datasets/page/2", "/actors", "/automation", "/use-cases", "/formats/json"];
for (const path of lists) {
  await checkList(path).catch((e) => fail(`${path}: ${e.message.split("\n")[0]}`));
}

await checkIcon().catch((e) => fail(`/favicon.ico: ${e.message.split("\n")[0]}`));
const context = await browser.newContext({ bypassCSP: true });
const page = await context.newPage();
const missing = await page.goto(`${args.base}/datasets/no-such-product`);
if (missing.status() !== 404) fail(`an unknown page answered ${missing.status()}`);
if (!(await page.locator("h1").innerText()).includes("not found")) fail("the 404 page has no heading saying so");
await axe(page, "404 page");
await browser.close();

console.log(`browser: ${records.length} product pages (light and dark), ${lists.length} list pages (home, routes, a second page, a taxonomy's, a term's; light and dark) at two widths and the 404 page in Chromium; axe (${expectations.axe_tags.join(", ")}): ${failures.length ? "violations" : "no violation"} (${axeRules} rules passed on a page)`);
process.exit(failures.length ? 1 : 0);
