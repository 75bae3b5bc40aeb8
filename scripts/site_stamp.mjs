#!/usr/bin/env node
// The site's version in each page's footer (a post-render step of `quarto render`):
//
//   node scripts/site_stamp.mjs          # stamps _site/ (what `quarto render` runs)
//   node scripts/site_stamp.mjs DIR      # the pages of another rendered site
//
// _quarto.yml's page-footer holds <span class="site-version">…</span>; it becomes
//   "Site version 1a2b3c4d5e6f (2026-12-01) · rendered with Quarto 1.11.0"
// The commit is $GITHUB_SHA on GitHub, else the checkout's HEAD (with "+changes" when tracked files
// differ from it), its date the commit's date (so a re-render of one commit stamps the same text);
// the Quarto version is `quarto --version` of the Quarto that runs this step.  Outside a git
// checkout the commit reads "not in git".
// On a module's pages (modules/<id>/…), <span class="data-provenance"></span> beside it becomes the
// measured data's provenance line, "Results: Lab 3 at full settings, seed 0, on …, 2026-11-30
// (data/<id>/results.json)", from the module's _metadata.yml (formatted there by scripts/site_data.py).
import {existsSync, readFileSync, writeFileSync} from "node:fs";
import {sitePages} from "./site_files.mjs";
import {join, resolve, dirname} from "node:path";
import {execFileSync} from "node:child_process";
import {fileURLToPath} from "node:url";
import YAML from "yaml";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PLACEHOLDER = /<span class="site-version">[^<]*<\/span>/g;
const PROVENANCE = /<span class="data-provenance">[^<]*<\/span>/g;

const run = (cmd, args, cwd = ROOT) => {
  try {
    return execFileSync(cmd, args, {cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"]}).trim();
  } catch {
    return null;
  }
};

export function quartoVersion() {
  const bin = process.env.QUARTO_BIN_PATH ? join(process.env.QUARTO_BIN_PATH, "quarto") : "quarto";
  return run(existsSync(bin) ? bin : "quarto", ["--version"]) ?? "unknown";
}

/** {commit, date, changed} of the checkout (or $GITHUB_SHA's commit on GitHub). */
export function siteVersion(cwd = ROOT) {
  const sha = process.env.GITHUB_SHA || run("git", ["rev-parse", "HEAD"], cwd);
  if (!sha) return {commit: "not in git", date: null, changed: false};
  const date = run("git", ["show", "-s", "--format=%cs", sha], cwd);
  const changed = !process.env.GITHUB_SHA && Boolean(run("git", ["status", "--porcelain", "--untracked-files=no"], cwd));
  return {commit: sha.slice(0, 12), date, changed};
}

export function stampText({commit, date, changed}, quarto) {
  return `Site version ${commit}${changed ? "+changes" : ""}${date ? ` (${date})` : ""} · rendered with Quarto ${quarto}`;
}

/** The provenance line of module `id`'s measured data, or "" when it has none. */
export function provenanceText(id, root = ROOT) {
  const file = join(root, "modules", id, "_metadata.yml"), info = join(root, "modules", id, "module.yml");
  if (!existsSync(file)) return "";
  const p = YAML.parse(readFileSync(file, "utf8"))?.data?.provenance;
  if (!p?.run_phrase) return "";
  const number = existsSync(info) ? YAML.parse(readFileSync(info, "utf8"))?.number : null;
  return `Results: Lab ${number ?? id} at ${p.run_phrase}${p.date ? `, ${p.date}` : ""} (data/${id}/results.json)`;
}

const escape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function main(site) {
  const text = escape(stampText(siteVersion(), quartoVersion()));
  const provenance = new Map();
  for (const file of sitePages(site)) {
    const html = readFileSync(file, "utf8");
    const id = /^modules[\\/]([^\\/]+)[\\/]/.exec(file.slice(site.length + 1))?.[1];
    if (id && !provenance.has(id)) provenance.set(id, escape(provenanceText(id)));
    const stamped = html.replace(PLACEHOLDER, `<span class="site-version">${text}</span>`)
      .replace(PROVENANCE, `<span class="data-provenance">${id ? provenance.get(id) : ""}</span>`);
    if (stamped !== html) writeFileSync(file, stamped);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv[2] ? resolve(process.argv[2]) : resolve(process.env.QUARTO_PROJECT_OUTPUT_DIR ?? join(ROOT, "_site")));
}
