// The post-render's contract with Quarto, tested with Quarto itself changed:
// - the catalogue of planted changes (tests/contracts/plants.mjs) covers every pass (two kinds at
//   least) and every entry of what the course takes from Quarto (quarto-dependencies.json);
// - every plant, rendered with a copy of Quarto's resources that carries it, stops the render under
//   the right pass and page (tests/contracts/run.mjs, as `make contracts`; its results cached in
//   build/contracts/ by Quarto's version, the plant, the fixture and the course's filters);
// - the course's code (the passes, the page scripts, your-run.js, demo-setup.ojs, site.css) uses no
//   Quarto class the list does not name (Quarto's classes: those in the fixture as Quarto wrote it that
//   Quarto's own source names).
import {test} from "node:test";
import assert from "node:assert/strict";
import {existsSync, readdirSync, readFileSync, statSync} from "node:fs";
import {extname, join, relative} from "node:path";
import {onPath} from "./browser.mjs";
import {ROOT} from "./qmd-files.mjs";
import {PLANTS} from "../contracts/plants.mjs";
import {baseline, runContracts} from "../contracts/run.mjs";
import {installedQuarto} from "../contracts/quarto.mjs";
import {DEPENDENCIES} from "../../_extensions/course/post-render/dependencies.mjs";
import {PASSES} from "../../_extensions/course/post-render/passes/index.mjs";

const skip = onPath("quarto") ? false : "quarto is not on PATH: the planted changes cannot be rendered here";
const LINE = /^contracts: (\d+) of (\d+) planted changes stopped the render under the right pass \((\d+) passes\)$/;

test("the catalogue plants two kinds of change for every pass, and a change of every entry of what the course takes from Quarto", () => {
  const names = PASSES.map((p) => p.name);
  const ids = new Set(DEPENDENCIES.map((d) => d.id));
  assert.equal(new Set(PLANTS.map((p) => p.id)).size, PLANTS.length, "each plant's id is its own");
  for (const p of PLANTS) {
    assert.ok(names.includes(p.pass), `${p.id}: pass ${p.pass} is a pass of passes/index.mjs`);
    assert.ok(p.page && p.kind && p.what && p.patch.length, `${p.id}: page, kind, what and patch`);
    for (const d of p.deps) assert.ok(ids.has(d), `${p.id}: ${d} is an entry of quarto-dependencies.json`);
  }
  for (const name of names) {
    const kinds = new Set(PLANTS.filter((p) => p.pass === name).map((p) => p.kind));
    assert.ok(kinds.size >= 2, `pass ${name} has plants of ${kinds.size} kind(s): ${[...kinds]}`);
  }
  const unplanted = DEPENDENCIES.filter((d) => !PLANTS.some((p) => p.deps.includes(d.id))).map((d) => d.id);
  assert.deepEqual(unplanted, [], "every entry of quarto-dependencies.json has a planted change");
  for (const d of DEPENDENCIES) {
    assert.ok(names.includes(d.pass), `${d.id}: checked by pass ${d.pass}`);
    // a file of the course extension, of its post-render, or of the project (site.css)
    for (const f of d.used) assert.ok([["_extensions", "course"], ["_extensions", "course", "post-render"], []].some((dir) => existsSync(join(ROOT, ...dir, f))), `${d.id}: ${f} exists`);
  }
});

test("make contracts: every planted Quarto change stops the render under the right pass and page", {skip, timeout: 3_600_000}, async () => {
  const {line, ok, problems} = await runContracts();
  const m = LINE.exec(line);
  assert.ok(m, line);
  assert.equal(Number(m[2]), PLANTS.length);
  assert.equal(Number(m[3]), new Set(PLANTS.map((p) => p.pass)).size);
  assert.ok(ok, `${line}\n${problems.join("\n")}`);
});

// ------------------------------------------------------------------------------------------------
// the course's code names no Quarto class the list does not

const CODE = [
  ...readdirSync(join(ROOT, "_extensions", "course", "post-render", "passes")).map((f) => join("_extensions", "course", "post-render", "passes", f)),
  "_extensions/course/your-run.js", "_extensions/course/demo-setup.ojs", "_extensions/course/near-screen.js", "site.css",
];

/** The classes a file's selectors name: in a stylesheet its selectors, in a script its strings' selectors and class tests. */
export function classesUsed(text, ext) {
  const found = new Set();
  const selectors = ext === ".css" ? [...text.replace(/\/\*[\s\S]*?\*\//g, "").matchAll(/([^{}]+)\{/g)].map((m) => m[1])
    : [...text.matchAll(/(["'`])((?:\\.|(?!\1)[^\\\n])*)\1/g)].map((m) => m[2]);
  for (const s of selectors) for (const m of s.matchAll(/(?:^|[\s>+~,(:a-z\]*])\.([a-zA-Z][\w-]*)/g)) found.add(m[1]);
  if (ext !== ".css") for (const m of text.matchAll(/(?:hasClass|classList\.contains)\(\s*["']([\w-]+)["']/g)) found.add(m[1]);
  return found;
}

/** The words of Quarto's own source: its resources' templates, filters, scripts and stylesheets, and its TypeScript. */
function quartoWords(share) {
  const words = new Set();
  const walk = (dir) => {
    for (const e of readdirSync(dir, {withFileTypes: true})) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if ([".lua", ".ejs", ".scss", ".html", ".js", ".ts", ".css"].includes(extname(e.name)) && statSync(path).size < 2_000_000) {
        for (const w of readFileSync(path, "utf8").match(/[a-z][a-z0-9-]+/gi) ?? []) words.add(w);
      }
    }
  };
  walk(share);
  const src = join(share, "..");
  for (const sub of ["format", "project", "command", "execute", "core"]) if (existsSync(join(src, sub))) walk(join(src, sub));
  return words;
}

/** The classes the course writes itself: the author's ({.diagram}, an OJS cell's classes: option) and its Lua filters' (class="..."). */
function courseClasses() {
  const own = new Set();
  const fixture = join(ROOT, "tests", "contracts", "fixture");
  for (const f of readdirSync(fixture).filter((n) => /\.(qmd|ojs)$/.test(n))) {
    const text = readFileSync(join(fixture, f), "utf8");
    for (const block of text.match(/\{[^}\n]*\}/g) ?? []) for (const m of block.matchAll(/\.([a-zA-Z][\w-]*)/g)) own.add(m[1]);
    for (const m of text.matchAll(/\/\/\|\s*classes:\s*(.*)/g)) for (const c of m[1].split(/\s+/)) own.add(c);
  }
  const ext = join(ROOT, "_extensions", "course");
  for (const f of readdirSync(ext).filter((n) => n.endsWith(".lua"))) {
    for (const m of readFileSync(join(ext, f), "utf8").matchAll(/class=\\?["']([^"'\\]*)/g)) for (const c of m[1].split(/\s+/)) own.add(c);
  }
  return own;
}

test("the course's code uses no Quarto class that quarto-dependencies.json does not list", {skip, timeout: 3_600_000}, async () => {
  const raw = join((await baseline(installedQuarto())).dir, "raw");
  const written = new Set();
  for (const f of readdirSync(raw).filter((n) => n.endsWith(".html"))) {
    for (const m of readFileSync(join(raw, f), "utf8").matchAll(/\sclass="([^"]*)"/g)) for (const c of m[1].split(/\s+/)) if (c) written.add(c);
  }
  const words = quartoWords(installedQuarto().share);
  const own = courseClasses();
  const quartos = new Set([...written].filter((c) => words.has(c) && !own.has(c)));
  const listed = new Set(DEPENDENCIES.flatMap((d) => [JSON.stringify(d.name), JSON.stringify(d.check ?? {}), ...(d.classes ?? [])].flatMap((t) =>
    [...t.matchAll(/\.([a-zA-Z][\w-]*)/g), ...t.matchAll(/class=\\?"([^"\\]*)/g)].flatMap((m) => m[1].split(/\s+/))).concat(d.classes ?? [])));
  const unlisted = [];
  for (const rel of CODE) {
    for (const c of classesUsed(readFileSync(join(ROOT, rel), "utf8"), extname(rel) === ".css" ? ".css" : ".js")) {
      if (quartos.has(c) && !listed.has(c)) unlisted.push(`${rel}: .${c}`);
    }
  }
  assert.ok(quartos.size > 50, `Quarto's classes found in the fixture as Quarto wrote it (${quartos.size})`);
  assert.deepEqual(unlisted, [], "each Quarto class the course's code uses is an entry (or part of one) of quarto-dependencies.json");
});
