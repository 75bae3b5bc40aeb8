#!/usr/bin/env node
// `make contracts`: every planted Quarto change of the catalogue (plants.mjs), each rendered with a
// copy of Quarto's resources that carries it (quarto.mjs), must stop the render in the post-render,
// under the pass and on the page the catalogue names.  First the fixture is rendered with Quarto as
// it is, which must finish with every pass changing something (the baseline); then the plants, two
// at once, each rendering only the fixture pages it names.
//
// Each result is kept in build/contracts/ under one key: Quarto's version, the plant, the fixture,
// and the course's filters, post-render and _quarto.yml, so a run with nothing changed renders
// nothing.  The last line says how many plants stopped the render under the right pass:
//   contracts: S of P planted changes stopped the render under the right pass (N passes)
// Details (each plant's verdict, the render times) go to build/contracts/last-run.txt; what went
// wrong also to stderr.  Exit 1 when a plant did not stop the render rightly.
//   node tests/contracts/run.mjs [--only ID,ID]
import {createHash} from "node:crypto";
import {cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join, relative} from "node:path";
import {FIXTURE, ROOT, contractStop, fixtureProject, installedQuarto, overlayShare, plantedLauncher, render, rmrf, stopCurrentRenders} from "./quarto.mjs";
import {PLANTS} from "./plants.mjs";
import {PASSES} from "../../_extensions/course/post-render/passes/index.mjs";

export const CACHE = join(ROOT, "build", "contracts");
const AT_ONCE = 2;

/** Every file under `dir` (relative paths, sorted). */
function files(dir, base = dir) {
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name), base) : [relative(base, join(dir, e.name))]).sort();
}

/** The key of everything a render of the fixture depends on but the plant. */
export function baseKey(quarto) {
  const h = createHash("sha256").update(quarto.version).update("\0").update(process.version);
  const ext = join(ROOT, "_extensions", "course");
  for (const [dir, list] of [[ext, files(ext)], [FIXTURE, files(FIXTURE)], [ROOT, ["_quarto.yml", "site.css", "theme-offline.scss", "tests/contracts/quarto.mjs"]]]) {
    for (const f of list) h.update(f).update("\0").update(f.endsWith("quarto-dependencies.json") ? checkedPart(readFileSync(join(dir, f), "utf8")) : readFileSync(join(dir, f))).update("\0");
  }
  return h.digest("hex").slice(0, 16);
}

/** Of the dependency list, what the passes read (its prose, `name` and `used`, changes no render). */
const checkedPart = (text) => JSON.stringify(JSON.parse(text).dependencies.map(({id, pass, check, scripts, globals, classes}) => ({id, pass, check, scripts, globals, classes})));

const keyOf = (base, what) => createHash("sha256").update(base).update(JSON.stringify(what)).digest("hex").slice(0, 16);

/** The text of `file` (in the resources) with `change` made; a change whose text is not there is an Error. */
function changed(text, change, file) {
  if (change.regex) {
    const re = new RegExp(change.find, "g");
    if (!re.test(text)) throw new Error(`plant is stale: ${file} has no match for /${change.find}/`);
    return text.replace(new RegExp(change.find, "g"), change.replace);
  }
  const at = change.last ? text.lastIndexOf(change.find) : text.indexOf(change.find);
  if (at < 0) throw new Error(`plant is stale: ${file} does not contain ${JSON.stringify(change.find.slice(0, 80))}`);
  if (change.all) return text.split(change.find).join(change.replace);
  return text.slice(0, at) + change.replace + text.slice(at + change.find.length);
}

const MAIN = "filters/main.lua";
const ENTRY = {
  finalize: ['  { name = "finalize-wrapped-writer",', (lua) => `  { name = "planted", filter = ${lua}, traverser = 'jog' },\n`],
  "before-post-quarto": ['table.insert(quarto_filter_list, { name = "post-quarto"', (lua) => `table.insert(quarto_filter_list, { name = "planted", filter = ${lua}, traverser = 'jog' })\n`],
};

/** A copy (overlay) of Quarto's resources in `dir` with `plant`'s changes made. */
export function plantedShare(share, dir, plant) {
  const touched = [...new Set(plant.patch.map((c) => (c.filter ? MAIN : c.file)))];
  overlayShare(share, dir, touched);
  for (const c of plant.patch) {
    if (c.filter) {
      const [anchor, entry] = ENTRY[c.at];
      const path = join(dir, MAIN);
      writeFileSync(path, changed(readFileSync(path, "utf8"), {find: anchor, replace: entry(c.filter) + anchor}, MAIN));
    } else if (c.remove) {
      if (!existsSync(join(dir, c.file))) throw new Error(`plant is stale: no ${c.file} to remove`);
      rmSync(join(dir, c.file));
    } else if (c.rename) {
      if (!existsSync(join(dir, c.file))) throw new Error(`plant is stale: no ${c.file} to rename`);
      renameSync(join(dir, c.file), join(dir, c.file.replace(/[^/]+$/, c.rename)));
    } else {
      const path = join(dir, c.file);
      writeFileSync(path, changed(readFileSync(path, "utf8"), c, c.file));
    }
  }
  return dir;
}

/** The baseline: the fixture rendered with Quarto as it is, which must finish; its raw pages and
    report kept in build/contracts/baseline-<key>/ (the dependency list's tests read them). */
export async function baseline(quarto, base = baseKey(quarto)) {
  const dir = join(CACHE, `baseline-${base}`);
  if (existsSync(join(dir, "result.json"))) return {...JSON.parse(readFileSync(join(dir, "result.json"), "utf8")), dir, cached: true};
  mkdirSync(CACHE, {recursive: true});
  for (const e of readdirSync(CACHE)) if (e.startsWith("baseline-")) rmrf(join(CACHE, e));
  const work = mkdtempSync(join(tmpdir(), "contracts-baseline-"));
  try {
    const project = fixtureProject(join(work, "project"));
    const r = await render(quarto.launcher, project, [], {POSTRENDER_RAW: join(work, "raw")});
    const result = {code: r.code, seconds: r.seconds, log: r.log.slice(-4000)};
    mkdirSync(dir, {recursive: true});
    if (r.code === 0) {
      cpSync(join(work, "raw"), join(dir, "raw"), {recursive: true});
      cpSync(join(project, "_site"), join(dir, "site"), {recursive: true});
      const postCache = join(project, ".quarto", "course-postrender");
      if (existsSync(postCache)) cpSync(postCache, join(dir, "postrender-cache"), {recursive: true});
    }
    writeFileSync(join(dir, "result.json"), JSON.stringify(result));
    return {...result, dir, cached: false};
  } finally {
    rmrf(work);
  }
}

/** One plant rendered: {stopped, stop, code, seconds, error}; cached under its key. */
async function runPlant(quarto, base, plant, seed) {
  const file = join(CACHE, `plant-${keyOf(base, plant)}.json`);
  if (existsSync(file)) return {...JSON.parse(readFileSync(file, "utf8")), cached: true};
  const work = mkdtempSync(join(tmpdir(), `contracts-${plant.id}-`));
  let result;
  try {
    const share = plantedShare(quarto.share, join(work, "share"), plant);
    const launcher = plantedLauncher(quarto, share, join(work, "quarto"));
    const project = fixtureProject(join(work, "project"));
    if (seed && existsSync(seed)) cpSync(seed, join(project, ".quarto", "course-postrender"), {recursive: true});
    const r = await render(launcher, project, plant.render ?? []);
    const stop = contractStop(r.log);
    result = {id: plant.id, code: r.code, seconds: r.seconds, stop,
      stopped: r.code !== 0 && stop !== null && stop.pass === plant.pass && stop.page === plant.page,
      log: stop ? "" : r.log.slice(-1500)};
  } catch (err) {
    result = {id: plant.id, stopped: false, error: err.message, seconds: 0};
  } finally {
    rmrf(work);
  }
  if (!result.error) writeFileSync(file, JSON.stringify(result));
  return {...result, cached: false};
}

/** Run `plants` (default: all); {line, ok, results, base}. */
export async function runContracts({plants = PLANTS, say = () => {}} = {}) {
  const quarto = installedQuarto();
  const base = baseKey(quarto);
  const t0 = Date.now();
  const problems = [];
  const b = await baseline(quarto, base);
  if (b.code !== 0) problems.push(`the fixture does not render with Quarto as it is (exit ${b.code}):\n${b.log}`);
  const report = b.code === 0 ? JSON.parse(readFileSync(join(b.dir, "raw", "report.json"), "utf8")) : {};
  for (const p of PASSES) {
    const changes = Object.values(report[p.name] ?? {});
    if (b.code === 0 && !(changes.length && changes.every((n) => n > 0))) problems.push(`baseline: pass ${p.name} changed nothing on the fixture: ${JSON.stringify(report[p.name])}`);
    const planted = plants.filter((x) => x.pass === p.name);
    if (plants === PLANTS && new Set(planted.map((x) => x.kind)).size < 2) problems.push(`the catalogue has fewer than two kinds of plant for pass ${p.name}`);
  }
  const results = [];
  const queue = b.code === 0 ? [...plants] : [];
  const seed = join(b.dir, "postrender-cache");
  await Promise.all(Array.from({length: AT_ONCE}, async () => {
    while (queue.length) {
      const plant = queue.shift();
      const r = await runPlant(quarto, base, plant, seed);
      results.push({plant, ...r});
      say(`${r.stopped ? "stopped" : "NOT STOPPED"} ${plant.id} (${plant.pass}, ${plant.page})${r.cached ? " [cached]" : ` in ${r.seconds.toFixed(1)} s`}`
        + (r.stopped ? "" : `: ${r.error ?? (r.stop ? `stopped under ${r.stop.pass} on ${r.stop.page}` : `exit ${r.code}, no contract error\n${r.log}`)}`));
    }
  }));
  for (const r of results.filter((x) => !x.stopped)) problems.push(`plant ${r.plant.id} (${r.plant.what}) did not stop the render under ${r.plant.pass} on ${r.plant.page}: ${r.error ?? (r.stop ? `it stopped under ${r.stop.pass} on ${r.stop.page}` : `exit ${r.code}`)}`);
  const stopped = results.filter((r) => r.stopped).length;
  const passes = new Set(plants.map((p) => p.pass)).size;
  const line = `contracts: ${stopped} of ${plants.length} planted changes stopped the render under the right pass (${passes} passes)`;
  const seconds = (Date.now() - t0) / 1000;
  const rendered = results.filter((r) => !r.cached).length + (b.cached ? 0 : 1);
  const details = [`${new Date().toISOString()} quarto ${quarto.version}, key ${base}: ${seconds.toFixed(1)} s, ${rendered} renders (baseline ${b.cached ? "cached" : `${b.seconds.toFixed(1)} s`})`,
    ...results.map((r) => `${r.stopped ? "ok  " : "FAIL"} ${r.plant.id} -> ${r.stop ? `${r.stop.pass} @ ${r.stop.page}` : r.error ?? `exit ${r.code}`}${r.cached ? " [cached]" : ` ${r.seconds.toFixed(1)} s`}`),
    ...problems, line];
  mkdirSync(CACHE, {recursive: true});
  writeFileSync(join(CACHE, "last-run.txt"), details.join("\n") + "\n");
  return {line, ok: problems.length === 0 && stopped === plants.length, problems, results, base, seconds, rendered, baselineDir: b.dir};
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1].split(",") : null;
  const plants = only ? PLANTS.filter((p) => only.includes(p.id)) : PLANTS;
  const verbose = process.argv.includes("--verbose");
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => { stopCurrentRenders(); process.exit(130); });
  runContracts({plants, say: verbose ? (s) => console.error(s) : () => {}}).then(({line, ok, problems}) => {
    for (const p of problems) console.error(p);
    console.log(line);
    process.exit(ok ? 0 : 1);
  }).catch((err) => {
    console.error(err.stack);
    console.log("contracts: 0 of 0 planted changes stopped the render under the right pass (the catalogue could not run)");
    process.exit(1);
  });
}
