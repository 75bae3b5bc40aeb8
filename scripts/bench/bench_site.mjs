#!/usr/bin/env node
// `make bench-site`: how fast the site is for a reader and to render, against Quarto's own, measured
// side by side in ONE run on this machine (a benchmark that prints, not a test that passes or fails).
//
//   node scripts/bench/bench_site.mjs              # everything (about 15 minutes on 2 busy cores)
//   node scripts/bench/bench_site.mjs --no-render  # only the pages, from the renders of the last run
//   node scripts/bench/bench_site.mjs --renders-only  # only the renders (the pages' figures kept from the last run)
//   BENCH_SITE=DIR node scripts/bench/bench_site.mjs --no-render   # another rendered site's pages (DIR = its _site/)
//
// In $TMPDIR/bench-site-<hash>/ (outside the project, whose render globs would find copies in it)
// it renders, each with a plain `quarto render`:
//   bare/     a bare Quarto website (this site's theme and settings): bare.html, text only, and
//             bare-ojs.html, the same text with the site's self-hosted Observable libraries, one
//             slider and one plot (the issue's reference pages)
//   site/     a copy of this checkout as a fresh clone has it (no _site/, .quarto/ or vendor/):
//             cold, then again with nothing changed (warm: the faster of two), then with one page changed
//   quarto/   the same copy with the project's pre- and post-render steps taken out of _quarto.yml
//             (vendor/ copied in, as Quarto cannot make it): the same three
//   the two interleaved (quarto cold, site cold, quarto warm, site warm, ...), so that a busy
//   machine's changing load falls on both alike
// Then it serves bare/_site and site/_site gzipped from 127.0.0.1 (as GitHub Pages serves them) and
// measures, for the bare pages, the home page, the module page and the deck:
//   Lighthouse 12.2.3 mobile (its default: a Moto G Power, slow 4G and 4x CPU, simulated), the median
//     of 3 runs by score, with Debian's Chromium;
//   in Chromium (1280 x 900, no throttling of the network) at 1x and at 4x CPU slow-down: ready (the
//     page stops drawing: the last DOM change or long task before a second of quiet, or first paint),
//     blocking time (long tasks beyond 50 ms, from first paint on) and the bytes sent;
//   on the module page: each demo's draw time once it is scrolled to (after a reader's scroll through
//     the page), and once its collapsed callout opens; on the deck, a slide change onto the demo.
// Results: printed, written to build/bench/result.json, and (a full run) appended to data/bench-site.md.  Lighthouse is installed into
// build/bench-tools/ by the Makefile target (npm i -E lighthouse@12.2.3), not by `npm ci`.
import {cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, appendFileSync} from "node:fs";
import {dirname, join, resolve} from "node:path";
import {execFileSync, spawnSync} from "node:child_process";
import {fileURLToPath, pathToFileURL} from "node:url";
import {cpus, totalmem, tmpdir} from "node:os";
import {createHash} from "node:crypto";
import {serve, CHROMIUM, CHROMIUM_ARGS} from "../../tests/js/browser.mjs";
import {modules} from "../../tests/js/course.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const OUT = join(ROOT, "build", "bench");
// the renders go outside the project: Quarto's render globs (modules/*/index.qmd) would find copies below it
const RENDERS = join(tmpdir(), `bench-site-${createHash("sha256").update(ROOT).digest("hex").slice(0, 8)}`);
const TOOLS = join(ROOT, "build", "bench-tools");
// the module whose page and deck are measured: $BENCH_MODULE, else the course's first (by number)
const MODULE = process.env.BENCH_MODULE || modules()[0]?.id;
const RUNS = Number(process.env.BENCH_LIGHTHOUSE_RUNS || 3);
const args = new Set(process.argv.slice(2));
const log = (...xs) => console.error("bench-site:", ...xs);

// ---------------------------------------------------------------- renders

function cloneFiles() {
  const out = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {cwd: ROOT});
  return out.toString("utf8").split("\0").filter((f) => f && existsSync(join(ROOT, f)));
}

function copyProject(dir) {
  rmSync(dir, {recursive: true, force: true});
  for (const f of cloneFiles()) {
    mkdirSync(dirname(join(dir, f)), {recursive: true});
    cpSync(join(ROOT, f), join(dir, f));
  }
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
}

/** `quarto render` in dir; seconds (wall clock) and, from Quarto's log, nothing else. */
function quartoRender(dir) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync("nice", ["quarto", "render"], {cwd: dir, encoding: "utf8", timeout: 900_000});
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`quarto render in ${dir} failed:\n${r.stdout}\n${r.stderr}`.slice(-3000));
  return s;
}

/** Cold (nothing rendered before), warm (again, nothing changed; the faster of two), one page
    changed: seconds each, for each of `dirs`, their renders interleaved (a busy machine's load
    drifts: side by side, both see the same). */
function renderInterleaved(dirs, page) {
  const out = Object.fromEntries(Object.keys(dirs).map((k) => [k, {}]));
  const each = (f) => { for (const [k, dir] of Object.entries(dirs)) f(k, dir); };
  each((k, dir) => { out[k].cold = quartoRender(dir); });
  each((k, dir) => { out[k].warm = quartoRender(dir); });
  each((k, dir) => { out[k].warm = Math.min(out[k].warm, quartoRender(dir)); });
  each((k, dir) => {
    appendFileSync(join(dir, page), "\n\nOne more sentence, changed for the benchmark.\n");
    out[k].changed = quartoRender(dir);
  });
  return out;
}

const BARE_PAGE = (title, ojs) => `---
title: "${title}"
---

## A section

${"The module page's prose, much shorter: a paragraph of text with a [link](#a-section), some *emphasis* and `code`. ".repeat(4)}

${"A second paragraph, as a bare page would have it, with nothing but text in it. ".repeat(5)}
${ojs ? `
\`\`\`{ojs}
//| echo: false
//| output: false
libs = import(new URL("./vendor/observable-libs.js", document.baseURI).href)
Plot = libs.Plot
Inputs = libs.Inputs
\`\`\`

\`\`\`{ojs}
//| echo: false
viewof w = Inputs.range([0.5, 3], {value: 0.9, step: 0.05, label: "w"})
\`\`\`

\`\`\`{ojs}
//| echo: false
Plot.plot({width: 640, height: 320, y: {type: "log"}, marks: [Plot.line(Array.from({length: 61}, (_, t) => [t, w ** t]))]})
\`\`\`
` : ""}
## Another section

${"More text, and the end of the page. ".repeat(6)}
`;

function makeBare(dir) {
  rmSync(dir, {recursive: true, force: true});
  mkdirSync(join(dir, "vendor"), {recursive: true});
  cpSync(join(ROOT, "theme-offline.scss"), join(dir, "theme-offline.scss"));
  cpSync(join(ROOT, "vendor", "observable-libs.js"), join(dir, "vendor", "observable-libs.js"));
  writeFileSync(join(dir, "_quarto.yml"), `project:
  type: website
  output-dir: _site
  resources: [vendor/observable-libs.js]
website:
  title: "Bare"
  search: {location: navbar, type: overlay}
  navbar: {left: [{text: Bare, href: bare.qmd}, {text: "With OJS", href: bare-ojs.qmd}]}
format:
  html:
    theme: {light: [cosmo, theme-offline.scss], dark: [darkly, theme-offline.scss]}
    fontsize: 1.2em
    linestretch: 1.6
    toc: true
`);
  writeFileSync(join(dir, "bare.qmd"), BARE_PAGE("A bare Quarto page", false));
  writeFileSync(join(dir, "bare-ojs.qmd"), BARE_PAGE("A bare Quarto page with one slider and one plot", true));
}

function withoutProjectSteps(dir) {
  const file = join(dir, "_quarto.yml");
  const text = readFileSync(file, "utf8");
  // drop the pre-render: and post-render: lists (their items are indented deeper than the keys)
  const out = text.replace(/^( +)(pre|post)-render:\n(?:\1 +.*\n|\s*#.*\n)*/gm, "");
  writeFileSync(file, out);
  cpSync(join(ROOT, "vendor"), join(dir, "vendor"), {recursive: true});
}

// ---------------------------------------------------------------- the pages in Chromium

async function launch() {
  const {chromium} = await import("playwright-core");
  return chromium.launch({executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true});
}

const OBSERVE = () => {
  window.__bench = {long: [], last: 0, lcp: 0};
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__bench.long.push([e.startTime, e.duration]); })
    .observe({type: "longtask", buffered: true});
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__bench.lcp = e.startTime; })
    .observe({type: "largest-contentful-paint", buffered: true});
  new MutationObserver(() => { window.__bench.last = performance.now(); })
    .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
};

/** One load of `url` at `rate`x CPU: {fcp, ready, blocking, bytes} (ms, ms, ms, bytes sent). */
async function loadOnce(browser, url, rate) {
  const context = await browser.newContext({viewport: {width: 1280, height: 900}});
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", {rate});
  await page.addInitScript(OBSERVE);
  await page.goto(url, {waitUntil: "load"});
  // quiet: no DOM change and no long task for a second (at most 20 s)
  const m = await page.evaluate(async () => {
    const b = window.__bench;
    const busyUntil = () => Math.max(b.last, ...b.long.map(([s, d]) => s + d));
    const t0 = performance.now();
    while (performance.now() - busyUntil() < 1000 && performance.now() - t0 < 20000) await new Promise((r) => setTimeout(r, 100));
    const fcp = performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? 0;
    const nav = performance.getEntriesByType("navigation")[0];
    const ready = Math.max(fcp, b.lcp, nav.domContentLoadedEventEnd, busyUntil());
    const blocking = b.long.filter(([s]) => s >= fcp).reduce((sum, [, d]) => sum + Math.max(0, d - 50), 0);
    const bytes = [nav, ...performance.getEntriesByType("resource")].reduce((s, e) => s + (e.transferSize || e.encodedBodySize || 0), 0);
    return {fcp, ready, blocking, bytes};
  });
  await context.close();
  return m;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function chromiumMetrics(browser, url) {
  const out = {};
  for (const rate of [1, 4]) {
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await loadOnce(browser, url, rate));
    out[`x${rate}`] = Object.fromEntries(Object.keys(runs[0]).map((k) => [k, Math.round(median(runs.map((r) => r[k])))]));
  }
  return out;
}

/** The module page: each demo's draw time after a reader scrolls to it, and after its callout opens. */
async function demoTimes(browser, url) {
  const context = await browser.newContext({viewport: {width: 1280, height: 900}});
  const page = await context.newPage();
  await page.goto(url, {waitUntil: "load"});
  await page.waitForTimeout(1000);
  const result = await page.evaluate(async () => {
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    const drawn = (box) => box.querySelector('svg[class^="plot"]');
    const out = {scrolled: {}, opened: {}};
    // a reader scrolling through the page: half a screen every 200 ms; each demo outside a
    // collapsed callout timed from the frame it first shows on screen to its first drawn frame
    const boxes = [...document.querySelectorAll(".demo")];
    const seenAt = new Map();
    for (let y = 0; y < document.body.scrollHeight; y += innerHeight / 2) {
      scrollTo(0, y);
      await frame();
      for (const box of boxes) {
        if (box.closest(".collapse:not(.show)")) continue;
        const r = box.getBoundingClientRect();
        const name = [...box.classList].filter((c) => c !== "demo").join(" ");
        if (r.top < innerHeight && r.bottom > 0 && !seenAt.has(name)) seenAt.set(name, [performance.now(), box]);
      }
      for (const [name, [t, box]] of seenAt) if (drawn(box) && out.scrolled[name] === undefined) out.scrolled[name] = Math.max(0, performance.now() - t);
      await sleep(200);
    }
    for (const [name, [t, box]] of seenAt) {
      while (!drawn(box) && performance.now() - t < 10000) await frame();
      if (out.scrolled[name] === undefined) out.scrolled[name] = performance.now() - t;
    }
    // each collapsed callout with a demo: scrolled to, a second to settle, opened
    for (const callout of document.querySelectorAll(".callout")) {
      const box = callout.querySelector(".demo");
      const header = callout.querySelector('.callout-header[data-bs-toggle="collapse"]');
      if (!box || !header) continue;
      header.scrollIntoView({block: "start"});
      await sleep(1000);
      const t0 = performance.now();
      header.click();
      await frame();
      while (!(drawn(box) && box.getBoundingClientRect().height > 0) && performance.now() - t0 < 10000) await frame();
      out.opened[[...box.classList].filter((c) => c !== "demo").join(" ")] = performance.now() - t0;
    }
    return out;
  });
  await context.close();
  const round = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Math.round(v)]));
  return {scrolled: round(result.scrolled), opened: round(result.opened)};
}

/** The deck: from the key press onto the demo's slide to its plot drawn, after a second on the slide before. */
async function deckChange(browser, url) {
  const context = await browser.newContext({viewport: {width: 1280, height: 720}});
  const page = await context.newPage();
  await page.goto(url, {waitUntil: "load"});
  await page.waitForFunction(() => window.Reveal?.isReady?.(), null, {timeout: 20000});
  const index = await page.evaluate(() => {
    const slide = document.querySelector(".demo")?.closest("section");
    return slide ? Reveal.getSlides().indexOf(slide) : -1;
  });
  if (index < 1) { await context.close(); return null; }
  // walk there as a presenter does, one slide at a time
  for (let i = 0; i < index - 1; i++) { await page.keyboard.press("ArrowRight"); await page.waitForTimeout(60); }
  await page.waitForTimeout(1500);
  const ms = await page.evaluate(async () => {
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    const t0 = performance.now();
    document.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight", keyCode: 39, bubbles: true}));
    await frame();
    const box = () => Reveal.getCurrentSlide().querySelector(".demo");
    while (!(box()?.querySelector('svg[class^="plot"]')) && performance.now() - t0 < 10000) await frame();
    return performance.now() - t0;
  });
  await context.close();
  return Math.round(ms);
}

// ---------------------------------------------------------------- Lighthouse

async function lighthouseMedian(url) {
  const require = (await import("node:module")).createRequire(join(TOOLS, "package.json"));
  const {default: lighthouse} = await import(pathToFileURL(require.resolve("lighthouse")).href);
  const chromeLauncher = await import(pathToFileURL(require.resolve("chrome-launcher")).href);
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    const chrome = await chromeLauncher.launch({chromePath: CHROMIUM, chromeFlags: CHROMIUM_ARGS});
    try {
      const r = await lighthouse(url, {port: chrome.port, onlyCategories: ["performance"], output: "json", logLevel: "error"});
      const a = r.lhr.audits;
      runs.push({score: r.lhr.categories.performance.score, fcp: a["first-contentful-paint"].numericValue,
        lcp: a["largest-contentful-paint"].numericValue, tbt: a["total-blocking-time"].numericValue,
        cls: a["cumulative-layout-shift"].numericValue, si: a["speed-index"].numericValue,
        bytes: a["total-byte-weight"].numericValue});
    } finally {
      await chrome.kill();
    }
  }
  // a run Lighthouse could not score (e.g. NO_FCP on a starved machine) is left out of the median
  const scored = runs.filter((r) => typeof r.score === "number").sort((a, b) => a.score - b.score);
  if (!scored.length) return null;
  const m = scored[Math.floor(scored.length / 2)];
  return {...m, fcp: Math.round(m.fcp), lcp: Math.round(m.lcp), tbt: Math.round(m.tbt), si: Math.round(m.si),
    cls: Math.round(m.cls * 1000) / 1000, scores: runs.map((r) => r.score)};   // (null: not scored)
}

// ---------------------------------------------------------------- main

export function machine() {
  const c = cpus();
  let chromium = "";
  try { chromium = execFileSync(CHROMIUM, ["--version"], {encoding: "utf8"}).trim(); } catch {}
  let quarto = "";
  try { quarto = execFileSync("quarto", ["--version"], {encoding: "utf8"}).trim(); } catch {}
  return {cpus: `${c.length} x ${c[0]?.model ?? "?"}`, memory_gb: Math.round(totalmem() / 2 ** 30),
    load: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "), chromium, quarto, date: new Date().toISOString()};
}

async function main() {
  mkdirSync(OUT, {recursive: true});
  const result = {machine: machine(), render: null, pages: {}};
  const dirs = {bare: join(RENDERS, "bare"), site: join(RENDERS, "site"), quarto: join(RENDERS, "quarto")};
  if (!args.has("--no-render")) {
    if (!existsSync(join(ROOT, "vendor", "observable-libs.js"))) execFileSync("python3", ["-m", "scripts.pages.vendor_js"], {cwd: ROOT});
    log("rendering the bare pages");
    makeBare(dirs.bare);
    const bare = quartoRender(dirs.bare);
    const page = `modules/${MODULE}/glossary.qmd`;
    log("rendering Quarto's own (no project steps) and the site, side by side: cold, warm twice, one page changed");
    copyProject(dirs.quarto);
    withoutProjectSteps(dirs.quarto);
    copyProject(dirs.site);
    const {quarto: own, site} = renderInterleaved({quarto: dirs.quarto, site: dirs.site}, page);
    result.render = {bare_pages: bare, quarto_own: own, site,
      ratio: Object.fromEntries(Object.keys(site).map((k) => [k, Math.round(100 * site[k] / own[k]) / 100]))};
    writeFileSync(join(OUT, "render.json"), JSON.stringify(result.render, null, 2));
  } else if (existsSync(join(OUT, "render.json"))) {
    result.render = JSON.parse(readFileSync(join(OUT, "render.json"), "utf8"));
  }
  if (args.has("--renders-only")) {
    // the pages' figures from the last full run, the renders from this one
    const last = existsSync(join(OUT, "result.json")) ? JSON.parse(readFileSync(join(OUT, "result.json"), "utf8")) : {};
    const merged = {...last, render: result.render, machine_renders: result.machine};
    writeFileSync(join(OUT, "result.json"), JSON.stringify(merged, null, 2) + "\n");
    console.log(report(merged));
    return;
  }

  const bareServer = await serve(join(dirs.bare, "_site"));
  // BENCH_SITE=DIR: measure the pages of another rendered site (e.g. an earlier commit's _site/) beside the same bare pages
  const siteServer = await serve(process.env.BENCH_SITE || join(dirs.site, "_site"));
  const pages = {
    "bare page": `${bareServer.origin}/bare.html`,
    "bare page, one slider and plot": `${bareServer.origin}/bare-ojs.html`,
    "home page": `${siteServer.origin}/index.html`,
    "module page": `${siteServer.origin}/modules/${MODULE}/index.html`,
    "deck": `${siteServer.origin}/modules/${MODULE}/slides.html`,
  };
  const browser = await launch();
  try {
    for (const [name, url] of Object.entries(pages)) {
      log(`${name}: Chromium at 1x and 4x`);
      const entry = {chromium: await chromiumMetrics(browser, url)};
      if (existsSync(join(TOOLS, "node_modules", "lighthouse"))) {
        log(`${name}: Lighthouse mobile x${RUNS}`);
        entry.lighthouse = await lighthouseMedian(url);
      }
      result.pages[name] = entry;
    }
    log("module page: demos scrolled to and opened");
    result.demos = await demoTimes(browser, pages["module page"]);
    log("deck: a slide change onto the demo");
    result.deck_change_ms = await deckChange(browser, pages.deck);
  } finally {
    await browser.close();
    await bareServer.close();
    await siteServer.close();
  }
  if (process.env.BENCH_SITE) result.site = process.env.BENCH_SITE;
  writeFileSync(join(OUT, process.env.BENCH_SITE ? "result-other-site.json" : "result.json"), JSON.stringify(result, null, 2) + "\n");
  const text = report(result);
  console.log(text);
  if (!process.env.BENCH_SITE && !args.has("--no-render")) {
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {cwd: ROOT, encoding: "utf8"}).trim();
    appendFileSync(join(ROOT, "data", "bench-site.md"), `\n## ${result.machine.date} at ${commit}\n\n${text}\n`);
  }
}

export function report(r) {
  const lines = [];
  const kib = (b) => `${Math.round(b / 1024)} KiB`;
  const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
  lines.push(`Machine: ${r.machine.cpus}, ${r.machine.memory_gb} GB; load ${r.machine.load}; ${r.machine.chromium}; Quarto ${r.machine.quarto}; ${r.machine.date}`);
  lines.push("");
  lines.push("| page | Lighthouse mobile | first paint | largest paint | blocking | bytes | ready 1x | blocking 1x | ready 4x | blocking 4x | bytes sent |");
  lines.push("|---|---|---|---|---|---|---|---|---|---|---|");
  for (const [name, p] of Object.entries(r.pages)) {
    const l = p.lighthouse, c = p.chromium;
    lines.push(`| ${name} | ${l ? l.score.toFixed(2) : "-"} | ${l ? s(l.fcp) : "-"} | ${l ? s(l.lcp) : "-"} | ${l ? `${l.tbt} ms` : "-"} | ${l ? kib(l.bytes) : "-"} | ` +
      `${s(c.x1.ready)} | ${c.x1.blocking} ms | ${s(c.x4.ready)} | ${c.x4.blocking} ms | ${kib(c.x1.bytes)} |`);
  }
  if (r.demos) {
    lines.push("");
    lines.push(`Module page, demo drawn after it scrolls into view (ms): ${JSON.stringify(r.demos.scrolled)}`);
    lines.push(`Module page, demo drawn after its callout is clicked open (ms): ${JSON.stringify(r.demos.opened)}`);
  }
  if (r.deck_change_ms != null) lines.push(`Deck: key press onto the demo's slide to its plot drawn: ${r.deck_change_ms} ms`);
  if (r.render) {
    const q = r.render.quarto_own, t = r.render.site;
    lines.push("");
    lines.push("| render | Quarto's own (no project steps) | the site | ratio |");
    lines.push("|---|---|---|---|");
    for (const k of ["cold", "warm", "changed"]) lines.push(`| ${k === "changed" ? "one page changed" : k} | ${q[k].toFixed(1)} s | ${t[k].toFixed(1)} s | ${r.render.ratio[k]} |`);
  }
  return lines.join("\n");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => { console.error(err); process.exit(1); });
}
