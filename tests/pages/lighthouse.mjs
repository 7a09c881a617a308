// Lighthouse on every page type, mobile and desktop, in Debian's Chromium.
// Run by .ci/pages against `foundry-catalog serve` serving a catalog built
// for its own address (so that canonical links and robots.txt are the
// site's own, as in production).
//
// Accessibility, best practices and SEO must each score 100 (but a page
// given in --noindex, kept out of search engines on purpose, whose SEO
// fails "is-crawlable" alone, and must). Performance
// is judged on its audits, as a shared 2-core machine's CPU noise moves
// its timing metrics: no layout shift (CLS audit 1), no blocking time
// (TBT audit 1), and every weighted performance audit that is not a timing
// metric passing; the score itself is printed, and must be at least 90.
//
//   node lighthouse.mjs --base http://127.0.0.1:PORT --paths /,/datasets,...
import { parseArgs } from "node:util";
import lighthouse from "lighthouse";
import desktopConfig from "lighthouse/core/config/desktop-config.js";
import * as chromeLauncher from "chrome-launcher";

const { values: args } = parseArgs({
  options: {
    base: { type: "string" },
    paths: { type: "string" },
    // Pages kept out of search engines on purpose (the search page): SEO
    // must score 100 but for "is-crawlable", which must fail.
    noindex: { type: "string", default: "" },
    chromium: { type: "string", default: "/usr/bin/chromium" },
  },
});
const TIMING = new Set(["first-contentful-paint", "largest-contentful-paint", "speed-index", "interactive", "max-potential-fid"]);
const failures = [];
const noindex = new Set(args.noindex.split(",").filter(Boolean));
const chrome = await chromeLauncher.launch({ chromePath: args.chromium, chromeFlags: ["--headless=new", "--no-sandbox"] });
const rows = [];
try {
  for (const path of args.paths.split(",")) {
    for (const [form, config] of [["mobile", undefined], ["desktop", desktopConfig]]) {
      const { lhr } = await lighthouse(
        args.base + path,
        { port: chrome.port, output: "json", logLevel: "error", onlyCategories: ["performance", "accessibility", "best-practices", "seo"] },
        config,
      );
      const score = (id) => Math.round((lhr.categories[id].score ?? 0) * 100);
      const what = `${path} (${form})`;
      const hidden = noindex.has(path);
      if (hidden && (lhr.audits["is-crawlable"].score ?? 1) === 1) failures.push(`${what}: crawlable, not noindex`);
      for (const id of ["accessibility", "best-practices", "seo"]) {
        const failing = lhr.categories[id].auditRefs
          .filter((ref) => ref.weight > 0 && (lhr.audits[ref.id].score ?? 1) < 1)
          .filter((ref) => !(hidden && ref.id === "is-crawlable"))
          .map((ref) => `${ref.id}: ${lhr.audits[ref.id].explanation || lhr.audits[ref.id].title}`);
        if (failing.length || (score(id) !== 100 && !(hidden && id === "seo"))) {
          failures.push(`${what}: ${id} ${score(id)} (${failing.join("; ")})`);
        }
      }
      const performance = lhr.categories.performance.auditRefs.filter((ref) => ref.weight > 0);
      const slow = performance.filter(
        (ref) => !TIMING.has(ref.id) && (lhr.audits[ref.id].score ?? 1) < 1,
      );
      if (slow.length) failures.push(`${what}: performance audits ${slow.map((ref) => ref.id).join(", ")} fail`);
      if (score("performance") < 90) failures.push(`${what}: performance ${score("performance")}`);
      rows.push(`| ${path} | ${form} | ${score("performance")} | ${score("accessibility")} | ${score("best-practices")} | ${score("seo")} |`);
    }
  }
} finally {
  await chrome.kill();
}
console.log("| page | form factor | performance | accessibility | best practices | SEO |\n|---|---|---|---|---|---|");
console.log(rows.join("\n"));
for (const failure of failures) console.error(`FAIL ${failure}`);
console.log(`lighthouse: ${rows.length} runs, ${failures.length ? "failures" : `accessibility, best practices and SEO 100 on every one${noindex.size ? " (SEO on a --noindex page: every audit but is-crawlable, which fails there)" : ""}, performance judged on its audits`}`);
process.exit(failures.length ? 1 : 0);
