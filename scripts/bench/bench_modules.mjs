#!/usr/bin/env node
// `make bench-modules`: a dozen modules, simulated (a benchmark that prints, not a test; not part of
// `make test`; about 10 minutes here).  Does the course scale to twelve modules, and what does each
// module cost the render?
//
//   node scripts/bench/bench_modules.mjs           # the course as it is, with one more module, and with twelve
//   BENCH_ROUNDS=1 node scripts/bench/bench_modules.mjs   # one cold render of each (default 2: the faster kept)
//   node scripts/bench/bench_modules.mjs --no-log  # print only; data/bench-modules.md is left as it is
//
// In three copies of this project as a fresh clone has it (scripts/project_copy.mjs, outside the
// project), it makes modules with `make module ID=NN-simulated TITLE="Simulated NN"` (the template's
// module, built at its tiny settings): none in the first (the course as it is), one in the second,
// and as many as make twelve in the third.  It then renders each cold (`quarto render`, no _site/,
// .quarto/ or vendor/ left from before), the three interleaved round by round so that a shared
// machine's drifting load falls on each alike, and keeps each copy's fastest round.  Quarto must print
// no WARN or ERROR line.
//
// In the twelve-module site (served on 127.0.0.1, Chromium with every other request blocked, as the
// rendered-site suite opens it): the home page lists twelve modules and the navbar a menu for each;
// every page, at 1280 × 720 and 390 × 844, passes the per-page rules of the rendered-site suite
// (tests/js/site-browser-checks.mjs: pageDefects and axe-core, and no console or page error, failed
// request or request off the site); and each module page's demos draw in their places
// (scripts/pages/demo_places.mjs).
//
// It reports each render's time and its time per module against one module's (no worse than linear
// when twelve take at most twelve times one), and the cost of each module beyond the first; writes
// build/bench/modules.json and, unless --no-log, appends the report with its date, commit and
// machine to data/bench-modules.md (README.md keeps the last one).  Exits 1 when a check fails.
import {execFileSync, spawnSync} from "node:child_process";
import {appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from "node:fs";
import {join, resolve} from "node:path";
import {fileURLToPath} from "node:url";
import {copyProject, ROOT} from "../project_copy.mjs";
import {machine} from "./bench_site.mjs";
import {measureDemos, moved} from "../pages/demo_places.mjs";
import {modules} from "../../tests/js/course.mjs";

const TARGET = 12;
const ROUNDS = Number(process.env.BENCH_ROUNDS || 2);
const OUT = join(ROOT, "build", "bench");
const LOG = join(ROOT, "data", "bench-modules.md");
const args = new Set(process.argv.slice(2));
const log = (...xs) => console.error("bench-modules:", ...xs);

/** The ids of `count` new modules, numbered after the course's (04-simulated, 05-simulated, ...). */
function newIds(count) {
  const taken = new Set(modules().map((m) => m.number));
  const ids = [];
  for (let n = 1; ids.length < count; n++) if (!taken.has(n) && n > Math.max(0, ...taken)) ids.push(`${String(n).padStart(2, "0")}-simulated`);
  return ids;
}

function makeModules(project, ids) {
  for (const id of ids) {
    const t0 = Date.now();
    const r = spawnSync("nice", ["make", "-s", "module", `ID=${id}`, `TITLE=Simulated ${id.slice(0, 2)}`], {cwd: project, encoding: "utf8"});
    if (r.status !== 0) throw new Error(`make module ID=${id} failed (exit ${r.status}):\n${`${r.stdout}\n${r.stderr}`.slice(-3000)}`);
    log(`make module ID=${id}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
}

/** A cold `quarto render` of `project`: {seconds, postrender_seconds, pages, warnings}. */
function coldRender(project) {
  for (const d of ["_site", ".quarto", "vendor"]) rmSync(join(project, d), {recursive: true, force: true});
  const t0 = process.hrtime.bigint();
  const r = spawnSync("nice", ["quarto", "render"], {cwd: project, encoding: "utf8", maxBuffer: 64 << 20});
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const out = `${r.stdout}\n${r.stderr}`;
  if (r.status !== 0) throw new Error(`quarto render in ${project} failed (exit ${r.status}):\n${out.slice(-3000)}`);
  const post = /postrender: \d+ passes over (\d+) pages in ([\d.]+) s/.exec(out);
  return {seconds, postrender_seconds: post ? Number(post[2]) : null, pages: post ? Number(post[1]) : null,
    warnings: out.split("\n").filter((l) => /WARN|ERROR/.test(l))};
}

/** The twelve-module site's checks: a list of what went wrong ([] when nothing did), and what was checked. */
async function checkSite(project, ids) {
  const {SCREENS, openSite, openPage, pagesOf, pageDefects, axeViolations} = await import("../../tests/js/site-browser-checks.mjs");
  const {offlinePage} = await import("../../tests/js/browser.mjs");
  const bad = [];
  const home = readFileSync(join(project, "_site", "index.html"), "utf8");
  const listed = new Set([...home.matchAll(/href="(?:\.\/)?modules\/([^/"]+)\/index\.html"/g)].map((m) => m[1]));
  for (const id of ids) if (!listed.has(id)) bad.push(`index.html: the home page does not link modules/${id}/index.html`);
  if (listed.size !== ids.length) bad.push(`index.html: the home page lists ${listed.size} modules, not ${ids.length} (${[...listed].join(", ")})`);
  const menus = new Set([...home.matchAll(/>Module (\d+)</g)].map((m) => m[1])).size;
  if (menus < ids.length) bad.push(`index.html: the navbar has ${menus} module menus, not ${ids.length}`);

  const pages = pagesOf(join(project, "_site"));
  const {site, browser, close} = await openSite(project);
  let loads = 0;
  try {
    for (const path of pages) {
      for (const screen of SCREENS) {
        const {context, page, problems} = await openPage(browser, site.origin, path, screen);
        loads++;
        try {
          bad.push(...[
            ...await pageDefects(page, screen),
            ...(await axeViolations(page)).map((v) => `axe-core: ${v}`),
            ...problems.blocked.map((u) => `request to another host: ${u}`),
            ...problems.failed.map((u) => `failed request: ${u}`),
            ...problems.pageErrors.map((e) => `page error: ${e}`),
            ...problems.console.map((e) => `console error: ${e}`),
          ].map((d) => `${path} at ${screen.width} px: ${d}`));
        } finally {
          await context.close();
        }
      }
    }
    for (const id of ids) {
      for (const screen of SCREENS) {
        const {context, page} = await offlinePage(browser, site.origin, {width: screen.width, height: screen.height});
        try {
          await page.goto(`${site.origin}/modules/${id}/index.html`, {waitUntil: "load"});
          bad.push(...moved(await measureDemos(page)).map((m) => `modules/${id}/index.html at ${screen.width} px: a demo off its place: ${m}`));
        } finally {
          await context.close();
        }
      }
    }
  } finally {
    await close();
  }
  return {bad, pages: pages.length, loads};
}

function commit() {
  const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], {cwd: ROOT, encoding: "utf8"}).trim();
  const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], {cwd: ROOT, encoding: "utf8"}).trim();
  return dirty ? `${head}+changes` : head;
}

export function report(r) {
  const s = (x) => `${x.toFixed(1)} s`;
  const [one, two, many] = r.courses;
  const lines = [
    `Machine: ${r.machine.cpus}, ${r.machine.memory_gb} GB; load ${r.machine.load}; ${r.machine.chromium}; Quarto ${r.machine.quarto}; ` +
      `${r.machine.date}; commit ${r.commit}; cold renders, the fastest of ${r.rounds} interleaved round${r.rounds === 1 ? "" : "s"}`,
    "",
    "| course | pages | render | of it, the post-render | per module | per module, against 1 module |",
    "|---|---|---|---|---|---|",
    ...r.courses.map((c) => `| ${c.modules} module${c.modules === 1 ? "" : "s"} | ${c.pages ?? "?"} | ${s(c.seconds)} | ` +
      `${c.postrender_seconds == null ? "?" : s(c.postrender_seconds)} | ${s(c.seconds / c.modules)} | ` +
      `${((c.seconds / c.modules) / (one.seconds / one.modules)).toFixed(2)} |`),
    "",
    `${many.modules} modules render in ${(many.seconds / one.seconds).toFixed(2)}× the time of ${one.modules} ` +
      `(${(many.modules / one.modules).toFixed(0)}× would be linear): ${(many.seconds / many.modules / (one.seconds / one.modules)).toFixed(2)}× ` +
      `the time per module, ${many.seconds / many.modules <= one.seconds / one.modules ? "no worse than linear" : "WORSE THAN LINEAR"}. ` +
      `Each module beyond the first costs ${s(r.marginal.each)} (the ${ordinal(two.modules + 1)} to ${ordinal(many.modules)}: ` +
      `${s(r.marginal.later)} each; the ${ordinal(two.modules)} alone: ${s(r.marginal.second)}).`,
    `Rounds (s): ${r.courses.map((c) => `${c.modules} module${c.modules === 1 ? "" : "s"} ${c.rounds.map((x) => x.toFixed(1)).join(" / ")}`).join("; ")}.`,
    `Checks of the ${many.modules}-module site: ${r.checks.bad.length ? `FAILED, ${r.checks.bad.length} problem(s):` :
      `the home page lists ${many.modules} modules; ${r.checks.pages} pages × 2 sizes pass every per-page rule (pageDefects, axe-core, no console error or failed request), and every demo draws in its place.`}`,
    ...r.checks.bad.slice(0, 40).map((b) => `- ${b}`),
  ];
  return lines.join("\n");
}

const ordinal = (n) => `${n}${n % 10 === 1 && n !== 11 ? "st" : n % 10 === 2 && n !== 12 ? "nd" : n % 10 === 3 && n !== 13 ? "rd" : "th"}`;

async function main() {
  mkdirSync(OUT, {recursive: true});
  const existing = modules().map((m) => m.id);
  if (existing.length >= TARGET - 1) throw new Error(`the course has ${existing.length} modules already: nothing to simulate`);
  const added = newIds(TARGET - existing.length);
  const plans = [[], added.slice(0, 1), added];
  const copies = plans.map(() => copyProject({prefix: "bench-modules-", git: false}));
  try {
    plans.forEach((ids, i) => { if (ids.length) log(`copy ${i + 1}: make module x${ids.length}`); makeModules(copies[i].project, ids); });
    const times = plans.map(() => []);
    for (let round = 1; round <= ROUNDS; round++) {
      plans.forEach((ids, i) => {
        const n = existing.length + ids.length;
        log(`round ${round}: cold render of ${n} module${n === 1 ? "" : "s"}`);
        const t = coldRender(copies[i].project);
        if (t.warnings.length) throw new Error(`quarto render of ${n} modules warned:\n${t.warnings.join("\n")}`);
        log(`  ${t.seconds.toFixed(1)} s (post-render ${t.postrender_seconds} s, ${t.pages} pages)`);
        times[i].push(t);
      });
    }
    const courses = plans.map((ids, i) => {
      const best = times[i].reduce((a, b) => (b.seconds < a.seconds ? b : a));
      return {modules: existing.length + ids.length, ...best, rounds: times[i].map((t) => t.seconds), warnings: undefined};
    });
    const [one, two, many] = courses;
    const marginal = {each: (many.seconds - one.seconds) / (many.modules - one.modules), second: two.seconds - one.seconds,
      later: (many.seconds - two.seconds) / (many.modules - two.modules)};
    log(`checks: the ${many.modules}-module site in Chromium, every page at both sizes`);
    const checks = await checkSite(copies[2].project, [...existing, ...added]);
    const result = {machine: machine(), commit: commit(), rounds: ROUNDS, courses, marginal, checks};
    writeFileSync(join(OUT, "modules.json"), JSON.stringify(result, null, 2) + "\n");
    const text = report(result);
    console.log(text);
    if (!args.has("--no-log")) {
      if (!existsSync(LOG)) writeFileSync(LOG, "# `make bench-modules`: the runs\n\nEach run of `make bench-modules` appends its report here (scripts/bench/bench_modules.mjs); README.md keeps the\nlast one.\n");
      appendFileSync(LOG, `\n## ${result.machine.date} at ${result.commit}\n\n${text}\n`);
      log(`appended to ${LOG}`);
    }
    return checks.bad.length ? 1 : 0;
  } finally {
    for (const c of copies) c.remove();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then((code) => process.exit(code), (err) => { console.error(`bench-modules: ${err.message}`); process.exit(1); });
}
