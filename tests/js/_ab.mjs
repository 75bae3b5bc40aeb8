import {join} from "node:path";
import {pathToFileURL} from "node:url";
import {serve, CHROMIUM_ARGS, CHROMIUM} from "./browser.mjs";
const TOOLS = join(process.cwd(), "build", "bench-tools");
const require = (await import("node:module")).createRequire(join(TOOLS, "package.json"));
const {default: lighthouse} = await import(pathToFileURL(require.resolve("lighthouse")).href);
const chromeLauncher = await import(pathToFileURL(require.resolve("chrome-launcher")).href);
const A = await serve("/tmp/ab/a"), B = await serve("/tmp/ab/b");
const page = process.argv[2] || "modules/03-sequence-models/index.html";
for (let i = 0; i < Number(process.argv[3] || 2); i++) for (const [name, s] of [["A", A], ["B", B]]) {
  const chrome = await chromeLauncher.launch({chromePath: CHROMIUM, chromeFlags: CHROMIUM_ARGS});
  const r = await lighthouse(`${s.origin}/${page}`, {port: chrome.port, onlyCategories: ["performance"], output: "json", logLevel: "error"});
  const a = r.lhr.audits;
  console.log(name, r.lhr.categories.performance.score, ["first-contentful-paint", "largest-contentful-paint", "total-blocking-time", "cumulative-layout-shift", "speed-index"].map((k) => `${k.split("-").map((w) => w[0]).join("")}=${Math.round(a[k].numericValue * (k.startsWith("cum") ? 1000 : 1))}`).join(" "));
  await chrome.kill();
}
process.exit(0);
