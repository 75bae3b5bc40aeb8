// The course's modules for the node tests, found as scripts/course.py finds them: every folder
// modules/<id>/ with a module.yml, in the order of their numbers, and every path of a module from its
// id alone (the module template):
//
//   import {modules, module, moduleOf} from "./course.mjs";
//   const m = module("03-sequence-models");
//   const m = thisModule(import.meta.url);     // in modules/<id>/tests/: the module the test belongs to
//   m.dir, m.page("slides.qmd"), m.results, m.fixture, m.figuresDir, m.metadataFile, m.generated
//   const demo = await import(m.demoUrl("clipping-demo"));          // modules/<id>/clipping-demo.js
//
// Paths are absolute; m.site is the module's folder in the site ("modules/<id>"), the URL path of its pages.
import {readdirSync, readFileSync, existsSync} from "node:fs";
import {join, dirname, relative, resolve, sep} from "node:path";
import {fileURLToPath, pathToFileURL} from "node:url";
import YAML from "yaml";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const MODULES = join(ROOT, "modules");
// the course-wide presentation (_extensions/course/): the shared OJS set-up every page with demos
// includes once (as the body of an OJS fence: /_extensions/course/demo-setup.ojs), the demos' stylesheet and number formatter
export const COURSE = join(ROOT, "_extensions", "course");
export const DEMO_SETUP = join(COURSE, "demo-setup.ojs");
export const DEMO_CSS = join(COURSE, "demo.css");
export const FORMATTING = join(COURSE, "formatting.js");
// the module template (`make module`, scripts/new_module.py): its module/ folder becomes modules/<id>/
export const TEMPLATE_MODULE = join(ROOT, "scripts", "module_template", "module");

/**
 * Where a file will be in the project's layout: itself, or for a file of the module template the
 * place it takes in modules/<id>/ (a page there resolves its relative URLs against that folder).
 * `back` maps such a place back into the template.
 */
export function placeOf(file, id = "00-template") {
  const r = relative(TEMPLATE_MODULE, resolve(file));
  if (r.startsWith("..") || r.startsWith(sep)) return {place: resolve(file), back: (p) => p};
  const dir = join(MODULES, id);
  return {place: join(dir, r), back: (p) => (relative(dir, p).startsWith("..") ? p : join(TEMPLATE_MODULE, relative(dir, p)))};
}
const MODULE_ID = /^\d\d-[a-z0-9]+(?:-[a-z0-9]+)*$/;     // "03-sequence-models", as scripts/course.py
const REQUIRED = ["id", "number", "title", "summary", "schedule", "lab"];

/** One module: its metadata (module.yml) and its paths. */
export class Module {
  constructor(id, meta) {
    this.id = id;
    this.meta = meta;
  }

  get number() { return Number(this.meta.number); }
  get title() { return this.meta.title; }
  get schedule() { return this.meta.schedule; }
  get lab() { return this.meta.lab; }

  // ---- the module's folders (as scripts/course.py's Module) --------------------------------------
  get dir() { return join(MODULES, this.id); }
  /** The module's folder in the site and the project, "modules/<id>" (URL path of its pages). */
  get site() { return `modules/${this.id}`; }
  /** A file of the module's folder: its pages, deck, partials and demo modules. */
  page(name) { return join(this.dir, name); }
  get labDir() { return join(ROOT, "lab", this.id); }
  get labSource() { return join(this.labDir, this.lab.source); }
  get notebook() { return this.labSource.replace(/\.[^.\/]+$/, ".ipynb"); }
  get dataDir() { return join(ROOT, "data", this.id); }
  get results() { return join(this.dataDir, "results.json"); }
  get schema() { return join(this.dataDir, "results.schema.json"); }
  get figuresDir() { return join(ROOT, "figures", this.id); }
  get fixture() { return join(ROOT, "tests", "fixtures", this.id, "results.json"); }
  get metadataFile() { return join(this.dir, "_metadata.yml"); }
  get generated() { return join(this.dir, "_generated"); }

  /** The test fixture (tests/fixtures/<id>/results.json), parsed: results for the tests, not measurements. */
  fixtureData() { return JSON.parse(readFileSync(this.fixture, "utf8")); }

  /** The page values of the module, the `data:` map of modules/<id>/_metadata.yml ({{< meta data.KEY >}}). */
  pageData() { return existsSync(this.metadataFile) ? (YAML.parse(readFileSync(this.metadataFile, "utf8"))?.data ?? {}) : {}; }

  /** A demo module's file (modules/<id>/<name>.js) and its URL for import(). */
  demo(name) { return join(this.dir, `${name}.js`); }
  demoUrl(name) { return pathToFileURL(this.demo(name)).href; }

  /**
   * The figures the module's code/diagrams.py draws (its DIAGRAMS: {figure name: function}), as
   * paths under figures/<id>/; [] when the module draws none.  The measured plots are not among them.
   */
  diagrams() {
    const file = join(this.dir, "code", "diagrams.py");
    if (!existsSync(file)) return [];
    const m = /^DIAGRAMS\s*=\s*\{([^}]*)\}/m.exec(readFileSync(file, "utf8"));
    if (!m) throw new Error(`${relative(ROOT, file)} has no DIAGRAMS = {...}`);
    return [...m[1].matchAll(/["']([^"']+\.svg)["']\s*:/g)].map((x) => join(this.figuresDir, x[1]));
  }
}

function readModule(folder) {
  const file = join(folder, "module.yml");
  const meta = YAML.parse(readFileSync(file, "utf8")) ?? {};
  const name = folder.split(sep).pop();
  const missing = REQUIRED.filter((k) => !(k in meta));
  if (!meta.lab?.source) missing.push("lab.source");
  if (missing.length) throw new Error(`${relative(ROOT, file)} lacks ${missing.join(", ")}`);
  if (meta.id !== name || !MODULE_ID.test(name))
    throw new Error(`${relative(ROOT, file)}: id ${JSON.stringify(meta.id)} must be the folder's name, two digits and words joined by '-'`);
  return new Module(name, meta);
}

let cache = null;

/** Every module of the course, in the order of their numbers (then ids). */
export function modules() {
  cache ??= readdirSync(MODULES, {withFileTypes: true})
    .filter((e) => e.isDirectory() && existsSync(join(MODULES, e.name, "module.yml")))
    .map((e) => readModule(join(MODULES, e.name)))
    .sort((a, b) => a.number - b.number || a.id.localeCompare(b.id));
  return cache;
}

/** The module with this id; an error naming the modules there are when there is none. */
export function module(id) {
  const found = modules().find((m) => m.id === id);
  if (!found) throw new Error(`no module ${JSON.stringify(id)} (modules/<id>/module.yml); the course has: ${modules().map((m) => m.id).join(", ") || "none"}`);
  return found;
}

/**
 * The module a test file belongs to, from its own URL (`thisModule(import.meta.url)` in
 * modules/<id>/tests/): a module's tests name no module, so the template's run unchanged in every module.
 */
export function thisModule(url) {
  const file = fileURLToPath(url);
  const found = moduleOf(file);
  if (!found) throw new Error(`${relative(ROOT, file)} is not in a module's folder (modules/<id>/tests/)`);
  return found;
}

/** The module whose folder holds `file` (a page, partial or demo under modules/<id>/), or null. */
export function moduleOf(file) {
  const parts = relative(MODULES, resolve(file)).split(sep);
  if (parts[0] === ".." || parts.length < 2) return null;
  return modules().find((m) => m.id === parts[0]) ?? null;
}
