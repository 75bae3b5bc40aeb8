#!/usr/bin/env node
// The pages load only the CSS rules the site can use (the last post-render step of `quarto render`):
//
//   node scripts/purge_css.mjs          # _site/ (what `quarto render` runs)
//   node scripts/purge_css.mjs DIR      # another rendered site
//
// Quarto's Bootstrap stylesheet is all of Bootstrap 5 and Quarto's rules for every feature it has
// (dashboards, listings, grids, ...): 490 KB, 66 KiB gzipped, which every page must fetch and parse
// before it paints; the Bootstrap Icons stylesheet names some 2,000 icons (14 KiB gzipped) for the
// few the site shows.  PurgeCSS keeps each rule whose selector's classes, ids and elements appear in
// the site's pages or in the scripts they load (Bootstrap's and Quarto's scripts name the classes
// they add, such as "show", "collapsing", "headroom--unpinned"; the demos' modules and their OJS
// source, decoded, name theirs), and drops the rest.  The result goes beside the original as
// <name>.used.css (bootstrap-<hash>.used.min.css), and the pages link to it.  Quarto's original
// stays, so a later render (of one page, say) purges again from it, with that page's new classes.
//
// Incremental: the inputs' hash and the purged sheets are kept in .quarto/purge-css.json; with
// nothing changed, nothing is purged again (the sheets are put back where a render removed them).
// tests/js/site-rendered.test.mjs checks that every page lays out and looks the same with the purged
// stylesheets as with Quarto's whole ones (phone and desktop: callouts open, the phone's menu open,
// the search open, dark mode).
import {existsSync, readdirSync, readFileSync, statSync, writeFileSync, mkdirSync} from "node:fs";
import {createHash} from "node:crypto";
import {basename, dirname, join, relative, resolve} from "node:path";
import {fileURLToPath} from "node:url";
import {PurgeCSS} from "purgecss";
import {filesUnder, sitePages, writeIfChanged} from "./site_files.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SHEETS_DIR = join("site_libs", "bootstrap");
const USED = ".used";
// which stylesheets are purged: Quarto's Bootstrap (light and dark) and Bootstrap Icons' names
export const PURGED = /^bootstrap(-dark)?-[0-9a-f]+\.min\.css$|^bootstrap-icons\.css$/;
// Quarto's scripts name an icon by itself and build its class as `bi-${name}` (the search results'
// "file-richtext"): in a script, each quoted word also counts as bi-<word>, as for the icon font
// (subset_icon_font in scripts/vendor_js.py)
const QUOTED = /["'`]([a-z0-9]+(?:-[a-z0-9]+)*)["'`]/g;
export function scriptWords(text) {
  const words = text.match(/[A-Za-z0-9_-]+/g) ?? [];
  for (const m of text.matchAll(QUOTED)) words.push(`bi-${m[1]}`);
  return words;
}
const OPTIONS = {keyframes: true, fontFace: false, variables: false, rejected: false,
  extractors: [{extractor: scriptWords, extensions: ["js"]}]};

/** `bootstrap-abc.min.css` -> `bootstrap-abc.used.min.css`; `bootstrap-icons.css` -> `bootstrap-icons.used.css` */
export function usedName(name) {
  return name.replace(/(\.min)?\.css$/, (ext) => `${USED}${ext}`);
}

/** What may name a class: every page, every script the site serves, and the demos' OJS source
    (which the pages keep base64-encoded beside them, as <page>.ojs-source-<hash>.txt). */
export function siteContent(site) {
  const raw = filesUnder(site, (n) => /\.(html|m?js)$/.test(n))
    .map((f) => ({raw: readFileSync(f, "utf8"), extension: f.endsWith(".html") ? "html" : "js", file: f}));
  for (const f of filesUnder(site, (n) => /\.ojs-source-[0-9a-f]+\.txt$/.test(n))) {
    raw.push({raw: Buffer.from(readFileSync(f, "utf8").trim(), "base64").toString("utf8"), extension: "js", file: f});
  }
  return raw.sort((a, b) => (a.file < b.file ? -1 : 1));
}

/** The stylesheets to purge in `site` (Quarto's originals, not our .used copies). */
export function purgedSheets(site) {
  const dir = join(site, SHEETS_DIR);
  return existsSync(dir) ? readdirSync(dir).filter((n) => PURGED.test(n)).map((n) => join(dir, n)).sort() : [];
}

/** `html` linking to the purged copies of the sheets named in `names` instead of the originals. */
export function linkUsed(html, names) {
  return html.replace(/(<link\b[^>]*\bhref="[^"]*\/)([^"/]+\.css)(")/g, (tag, before, name, after) =>
    names.includes(name) ? `${before}${usedName(name)}${after}` : tag);
}

/** Purge the site's stylesheets into their .used copies and point `pages` (default: every page) at
    them; skipped when the inputs are those of the last run (`stateFile`). */
export async function purgeSite(site, {pages = null, stateFile = null} = {}) {
  const sheets = purgedSheets(site);
  if (!sheets.length) return {sheets: 0, skipped: false, before: 0, after: 0};
  const names = sheets.map((s) => basename(s));
  // each page as it will link (a page re-pointed by an earlier run reads the same as a fresh one)
  const content = siteContent(site).map((c) => (c.extension === "html" ? {...c, raw: linkUsed(c.raw, names)} : c));
  const key = createHash("sha256");
  key.update(JSON.stringify(OPTIONS) + scriptWords.toString());
  for (const s of sheets) key.update(s).update(readFileSync(s));
  for (const c of content) key.update(relative(site, c.file)).update(c.raw);
  const digest = key.digest("hex");
  // the last run's inputs and outputs: a render of the whole site starts from a fresh site_libs/, so
  // with nothing changed the purged sheets are written again from here, not purged again
  const state = stateFile && existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, "utf8")) : {};
  const skipped = state.key === digest && names.every((n) => typeof state.used?.[usedName(n)] === "string");
  let used = state.used ?? {}, before = 0, after = 0;
  if (!skipped) {
    used = {};
    const results = await new PurgeCSS().purge({content: content.map(({raw, extension}) => ({raw, extension})), css: sheets, ...OPTIONS});
    for (const r of results) {
      const header = `/* ${basename(r.file)}: the rules the site uses (scripts/purge_css.mjs) */\n`;
      used[usedName(basename(r.file))] = header + r.css;
      before += statSync(r.file).size;
      after += header.length + r.css.length;
    }
  }
  for (const [name, css] of Object.entries(used)) writeIfChanged(join(site, SHEETS_DIR, name), css);
  for (const page of pages ?? sitePages(site)) {
    if (!existsSync(page)) continue;
    const html = readFileSync(page, "utf8");
    const linked = linkUsed(html, names);
    if (linked !== html) writeIfChanged(page, linked);
  }
  if (stateFile && !skipped) {
    mkdirSync(dirname(stateFile), {recursive: true});
    writeFileSync(stateFile, JSON.stringify({key: digest, used}) + "\n");
  }
  return {sheets: sheets.length, skipped, before, after};
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const site = resolve(process.argv[2] || process.env.QUARTO_PROJECT_OUTPUT_DIR || join(ROOT, "_site"));
  try {
    statSync(site);
    const t0 = Date.now();
    // a render of some pages lists what it wrote: only those are re-pointed (the others were before)
    const listed = process.env.QUARTO_PROJECT_RENDER_ALL ? null : process.env.QUARTO_PROJECT_OUTPUT_FILES;
    const pages = listed == null ? null : listed.split("\n").filter((f) => f.endsWith(".html"))
      .map((f) => resolve(process.env.QUARTO_PROJECT_DIR || ".", f));
    // Quarto runs this in the project folder: its scratch folder .quarto/ keeps the state between renders
    const stateFile = process.argv[2] ? null : existsSync(".quarto") ? join(".quarto", "purge-css.json") : null;
    const r = await purgeSite(site, {pages, stateFile});
    const kb = (n) => `${Math.round(n / 1024)} KiB`;
    console.log(r.skipped ? `purge_css: ${r.sheets} stylesheets unchanged` :
      `purge_css: ${r.sheets} stylesheets, ${kb(r.before)} -> ${kb(r.after)} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } catch (err) {
    console.error(`purge_css: ${err.message}`);
    process.exit(1);
  }
}
