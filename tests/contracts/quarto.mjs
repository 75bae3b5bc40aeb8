// Rendering the contract fixture (tests/contracts/fixture/) with Quarto as installed, or with a
// planted change in a COPY of Quarto's own resources (its Lua filters, HTML templates, scripts: the
// files a Quarto release changes), as that release would render it.
//
// The copy is an overlay: a folder of links to Quarto's resources in which only the folders down to a
// patched file are real, so a plant costs a few links, not 60 MB.  Quarto finds its resources by
// $QUARTO_SHARE_PATH, which its launcher script sets: the planted Quarto is that launcher with the one
// line changed (and its own location written in, as it now runs from elsewhere).
import {chmodSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync} from "node:fs";
import {dirname, join, resolve} from "node:path";
import {execFileSync, spawn} from "node:child_process";
import {fileURLToPath} from "node:url";
import YAML from "yaml";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const FIXTURE = join(ROOT, "tests", "contracts", "fixture");

/** The `quarto` on PATH: its launcher script (resolved) and its resources folder. */
export function installedQuarto() {
  const which = execFileSync("bash", ["-c", "command -v quarto"], {encoding: "utf8"}).trim();
  const launcher = realpathSync(which);
  const share = execFileSync(launcher, ["--paths"], {encoding: "utf8"}).split("\n")[1].trim();
  const version = execFileSync(launcher, ["--version"], {encoding: "utf8"}).trim();
  return {launcher, share, version};
}

/** An overlay of `share` in `dir` where each of `files` (paths in the resources) is a real, writable copy. */
// folders Quarto climbs out of with "..": real in the overlay, so that ".." leads back into it (pandoc's
// data dir finds the Lua filters as datadir/../../filters)
const CLIMBED = ["pandoc/datadir/init.lua"];

export function overlayShare(share, dir, files) {
  const real = new Set();
  for (const f of [...files, ...CLIMBED]) {
    const parts = f.split("/");
    for (let i = 1; i < parts.length; i++) real.add(parts.slice(0, i).join("/"));
  }
  const fill = (rel) => {
    const into = join(dir, rel);
    mkdirSync(into, {recursive: true});
    for (const name of readdirSync(join(share, rel))) {
      const sub = rel ? `${rel}/${name}` : name;
      if (real.has(sub)) fill(sub);
      else if (files.includes(sub)) cpSync(join(share, sub), join(dir, sub), {recursive: true});
      else symlinkSync(join(share, sub), join(dir, sub));
    }
  };
  fill("");
  return dir;
}

/** A launcher for the installed Quarto that reads its resources from `share`, written to `file`. */
export function plantedLauncher({launcher}, share, file) {
  const text = readFileSync(launcher, "utf8");
  const line = /^(\s*export QUARTO_SHARE_PATH=).*$/m;
  if (!line.test(text)) throw new Error(`${launcher} sets no QUARTO_SHARE_PATH line: the catalogue cannot point this Quarto at a planted copy of its resources`);
  // the launcher finds its install from its own path: give it the real one
  const planted = text.replace(line, `$1${JSON.stringify(share)}`)
    .replaceAll('"${BASH_SOURCE[0]}"', JSON.stringify(launcher)).replaceAll('"$0"', JSON.stringify(launcher));
  writeFileSync(file, planted);
  chmodSync(file, 0o755);
  return file;
}

/** The fixture as a Quarto project in `dir`: its pages, the course's own extension and site.css
    (linked), and a _quarto.yml made from the course's (its formats, search, footer and post-render;
    no pre-render, no modules). */
export function fixtureProject(dir) {
  mkdirSync(dir, {recursive: true});
  cpSync(FIXTURE, dir, {recursive: true});
  for (const name of ["_extensions", "node_modules", "site.css", "favicon.svg", "theme-offline.scss"]) symlinkSync(join(ROOT, name), join(dir, name));
  const course = YAML.parse(readFileSync(join(ROOT, "_quarto.yml"), "utf8"));
  const config = {
    project: {type: "website", "output-dir": "_site", "post-render": course.project["post-render"], render: ["index.qmd", "plain.qmd", "slides.qmd"]},
    website: {...course.website, navbar: {left: [{text: "Home", href: "index.qmd"}, {text: "Plain", href: "plain.qmd"}]}},
    format: course.format,
    crossref: course.crossref,
    execute: course.execute,
    course: course.course,
  };
  writeFileSync(join(dir, "_quarto.yml"), YAML.stringify(config));
  return dir;
}

/** The renders under way (ended with this process: stopCurrentRenders()). */
const running = new Set();
export const stopCurrentRenders = () => { for (const child of running) child.kill(); };

/** Render `pages` (all when empty) of the project in `dir` with `quarto` (a launcher); {code, log, seconds}. */
export function render(quarto, dir, pages = [], env = {}) {
  const t0 = Date.now();
  return new Promise((done) => {
    const child = spawn(quarto, ["render", ...pages], {cwd: dir, env: {...process.env, ...env}});
    running.add(child);
    child.on("exit", () => running.delete(child));
    let log = "";
    child.stdout.on("data", (d) => { log += d; });
    child.stderr.on("data", (d) => { log += d; });
    child.on("close", (code) => done({code, log, seconds: (Date.now() - t0) / 1000}));
  });
}

/** The post-render's ContractError in a render's output ({pass, page, expected, found, markup}), or null. */
export function contractStop(log) {
  const line = log.split("\n").find((l) => l.startsWith("postrender-contract: "));
  return line ? JSON.parse(line.slice("postrender-contract: ".length)) : null;
}

export const rmrf = (p) => existsSync(p) && rmSync(p, {recursive: true, force: true});
export const isLink = (p) => lstatSync(p).isSymbolicLink();
