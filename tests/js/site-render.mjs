// ONE render of the site per state of the checkout, shared by every test that needs the rendered
// site (node suites and pytest alike), so `make test` renders once.
//
//   import {renderedSite} from "./site-render.mjs";
//   const {dir, site, renderSeconds, reused} = await renderedSite();   // site = dir/_site
//
//   node tests/js/site-render.mjs      # the same from any language: prints the project dir (JSON on
//                                      # the last line: {"dir", "site", "renderSeconds", "reused"})
//
// What is rendered is a copy of the files a fresh clone of this checkout has (tracked and new files,
// never ignored ones: not _site/, not vendor/, which the render's pre-render step rebuilds), with
// node_modules linked, by a plain `quarto render`, into build/site/render-<hash>/ where <hash> covers
// every copied file's path and content; raw-pages/ beside _site/ holds each page as Quarto wrote it, before
// the post-render (_extensions/course/post-render/run.mjs, POSTRENDER_RAW), with the post-render's report.json.  A second call with nothing changed reuses it; concurrent
// callers wait for the one that renders (an atomic mkdir lock).  Older renders are removed.  The
// render must succeed and print no WARN or ERROR line at all.  (Quarto counts a page's OJS blocks by
// the ```{ojs} fences in the page's own file and warns "OJS block count mismatch" for each block an
// include brings in; the pages keep every fence in their own file, the include inside it, and
// tests/js/qmd-ojs.test.mjs holds every partial to that.)
//   SITE_RENDERED=DIR  use DIR (a rendered project, DIR/_site) instead
import {createHash} from "node:crypto";
import {cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync} from "node:fs";
import {dirname, join, resolve} from "node:path";
import {execFileSync, spawnSync} from "node:child_process";
import {fileURLToPath} from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const RENDERS = join(ROOT, "build", "site");
const STALE_LOCK_MS = 15 * 60_000;      // a lock older than this was left by a killed run
/** The files a fresh clone of this checkout would have (tracked and untracked, not ignored). */
export function cloneFiles() {
  const out = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {cwd: ROOT});
  return out.toString("utf8").split("\0").filter((f) => f && existsSync(join(ROOT, f))).sort();
}

function inputsHash(files) {
  const h = createHash("sha256");
  for (const f of files) h.update(f).update("\0").update(readFileSync(join(ROOT, f))).update("\0");
  return h.digest("hex").slice(0, 16);
}

function copyInto(dir, files) {
  for (const f of files) {
    mkdirSync(dirname(join(dir, f)), {recursive: true});
    cpSync(join(ROOT, f), join(dir, f));
  }
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
}

/** Render a copy into `dir`; {renderSeconds} or an Error carrying Quarto's output. */
function render(dir, files) {
  const work = `${dir}.tmp`;
  rmSync(work, {recursive: true, force: true});
  copyInto(work, files);
  const t0 = Date.now();
  // the pages as Quarto wrote them, kept by the post-render for the contract test (postrender-contract.test.mjs)
  const env = {...process.env, POSTRENDER_RAW: join(work, "raw-pages")};
  const r = spawnSync("quarto", ["render"], {cwd: work, encoding: "utf8", env});
  const renderSeconds = (Date.now() - t0) / 1000;
  const log = `${r.stdout}\n${r.stderr}`;
  const warnings = log.split("\n").filter((l) => /WARN|ERROR/.test(l));
  if (r.status !== 0 || warnings.length) {
    rmSync(work, {recursive: true, force: true});
    throw new Error(r.status !== 0 ? `quarto render failed (exit ${r.status}):\n${log.slice(-4000)}`
      : `quarto render warned:\n${warnings.join("\n")}`);
  }
  const quartoVersion = execFileSync("quarto", ["--version"], {encoding: "utf8"}).trim();
  writeFileSync(join(work, "render.json"), JSON.stringify({renderSeconds, quartoVersion}) + "\n");
  renameSync(work, dir);
  return renderSeconds;
}

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

function removeOlderRenders(keep) {
  for (const e of readdirSync(RENDERS, {withFileTypes: true})) {
    if (e.isDirectory() && /^render-[0-9a-f]{16}$/.test(e.name) && e.name !== keep)
      rmSync(join(RENDERS, e.name), {recursive: true, force: true});
  }
}

export async function renderedSite() {
  if (process.env.SITE_RENDERED) {
    const dir = resolve(process.env.SITE_RENDERED);
    return {dir, site: join(dir, "_site"), renderSeconds: null, reused: true};
  }
  const files = cloneFiles();
  const name = `render-${inputsHash(files)}`;
  const dir = join(RENDERS, name), lock = `${dir}.lock`;
  mkdirSync(RENDERS, {recursive: true});
  for (;;) {
    if (existsSync(join(dir, "render.json"))) {
      const {renderSeconds} = JSON.parse(readFileSync(join(dir, "render.json"), "utf8"));
      return {dir, site: join(dir, "_site"), renderSeconds, reused: true};
    }
    try {
      mkdirSync(lock);                                   // atomic: one caller renders
    } catch {
      if (lockAge(lock) > STALE_LOCK_MS) rmSync(lock, {recursive: true, force: true});
      await sleep(1000);
      continue;
    }
    try {
      const renderSeconds = render(dir, files);
      removeOlderRenders(name);
      return {dir, site: join(dir, "_site"), renderSeconds, reused: false};
    } finally {
      rmSync(lock, {recursive: true, force: true});
    }
  }
}

function lockAge(lock) {
  try {
    return Date.now() - statSync(lock).mtimeMs;
  } catch {
    return 0;                                            // gone: the next round takes it
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  renderedSite().then((r) => console.log(JSON.stringify(r)), (err) => { console.error(err.message); process.exit(1); });
}
