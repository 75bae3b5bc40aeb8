// The post-render's contract with Quarto, on the suite's one real render (site-render.mjs), which keeps
// each page as Quarto wrote it (raw-pages/) and what each pass changed (raw-pages/report.json):
// - every pass changed something on the real render, and every page pass every page it targets;
// - each pass, run alone on the raw pages, works; and with one planted change of the Quarto markup it
//   expects (a renamed script, a missing search box, ...), it stops with a ContractError naming
//   itself and the page.  So a Quarto release that moves that markup fails this test, never a reader.
import {test} from "node:test";
import assert from "node:assert/strict";
import {cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {execFileSync} from "node:child_process";
import {renderedSite} from "./site-render.mjs";
import {onPath} from "./browser.mjs";
import {Site, runPasses} from "../../_extensions/course/post-render/pipeline.mjs";
import {Cache} from "../../_extensions/course/post-render/cache.mjs";
import {ContractError} from "../../_extensions/course/post-render/contract.mjs";
import {PASSES} from "../../_extensions/course/post-render/passes/index.mjs";

const skip = onPath("quarto") ? false : "quarto is not on PATH: the rendered site cannot be built here";
const MODULE_PAGE = "modules/03-sequence-models/index.html";
const GLOSSARY = "modules/03-sequence-models/glossary.html";
const pass = (name) => PASSES.find((p) => p.name === name) ?? assert.fail(`no pass named ${name}`);

/** A copy of the rendered site with its pages (and search index) as Quarto wrote them. */
function rawSite(rendered) {
  const dir = mkdtempSync(join(tmpdir(), "postrender-contract-"));
  cpSync(rendered.site, dir, {recursive: true});
  const raw = join(rendered.dir, "raw-pages");
  const report = JSON.parse(readFileSync(join(raw, "report.json"), "utf8"));
  for (const rel of new Set(Object.values(report).flatMap((pages) => Object.keys(pages)).filter((r) => r.endsWith(".html")))) {
    cpSync(join(raw, rel), join(dir, rel));
  }
  cpSync(join(raw, "search.json"), join(dir, "search.json"));
  return {dir, raw, report};
}

/** Each pass, its planted change of Quarto's markup: [what, (pages: rel -> html, site settings) => void]. */
const PLANTS = {
  "search-index": ["the index holds no TeX (Quarto indexes formulas otherwise)", (files) => {
    files["search.json"] = files["search.json"].replace(/\\\\[()[\]]/g, "");
  }],
  "ojs-on-demand": ["the runtime's script renamed", (files) => {
    files[MODULE_PAGE] = files[MODULE_PAGE].replace("quarto-ojs-runtime.js", "quarto-ojs-runtime-2.js");
  }],
  "minified-ojs-runtime": ["Quarto's resources without the minified runtime", (files, settings) => {
    settings.quartoShare = mkdtempSync(join(tmpdir(), "no-share-"));
  }],
  "hidden-cell-code": ["hidden cells' source marked otherwise", (files) => {
    files[MODULE_PAGE] = files[MODULE_PAGE].replaceAll("cell-code hidden", "cell-code folded");
  }],
  "deferred-head-scripts": ["the head's scripts moved to the body", (files) => {
    files["index.html"] = files["index.html"].replace(/<script\b[^>]*\bsrc="[^"]*"[^>]*><\/script>/g, "");
  }],
  "dom-ready-in-turns": ["no script in the head", (files) => {
    files["index.html"] = files["index.html"].replace(/<head>[\s\S]*<\/head>/, (head) => head.replace(/<script\b[\s\S]*?<\/script>/g, ""));
  }],
  "search-on-first-use": ["a missing search box", (files) => {
    files["index.html"] = files["index.html"].replace('<div id="quarto-search" class="" title="Search"></div>', "");
  }],
  "tippy-on-first-hover": ["tippy's script renamed", (files) => {
    files["index.html"] = files["index.html"].replace("tippy.umd.min.js", "tippy.min.js");
  }],
  "icon-fonts-early": ["AnchorJS's script renamed", (files) => {
    files["index.html"] = files["index.html"].replace("anchor.min.js", "anchor.js");
  }],
  "heading-anchors": ["AnchorJS set up otherwise", (files) => {
    files[MODULE_PAGE] = files[MODULE_PAGE].replace("placement: 'right'", "placement: 'left'");
  }],
  "callout-buttons": ["the callout toggle named otherwise", (files) => {
    files[MODULE_PAGE] = files[MODULE_PAGE].replaceAll('aria-label="Toggle callout"', 'aria-label="Open"');
  }],
  "focusable-figures": ["a figure's image box without aria-describedby", (files) => {
    files[MODULE_PAGE] = files[MODULE_PAGE].replaceAll("<div aria-describedby=", "<div data-describedby=");
  }],
  "dark-theme-on-demand": ["the dark theme's stylesheet marked otherwise", (files) => {
    files["index.html"] = files["index.html"].replaceAll("quarto-color-alternate", "quarto-color-dark");
  }],
  "typeset-math": ["MathJax's script tag gone", (files) => {
    files[GLOSSARY] = files[GLOSSARY].replace(/<script\b[^>]*mathjax[^>]*><\/script>/, "");
  }],
  "site-stamp": ["the footer's version placeholder gone", (files) => {
    files["index.html"] = files["index.html"].replace(/<span class="site-version">[^<]*<\/span>/, "");
  }],
  "icon-font": ["Quarto's resources without the icon font", (files, settings) => {
    settings.quartoShare = mkdtempSync(join(tmpdir(), "no-share-"));
  }],
  "purge-css": ["Bootstrap's stylesheet named otherwise", (files) => {
    files.__rename = [/^bootstrap-([0-9a-f]+)\.min\.css$/, "bootstrap.$1.css"];
  }],
  "no-cdn": ["a page loading a script from a CDN", (files) => {
    files["index.html"] = files["index.html"].replace("</head>", '<script src="https://cdn.jsdelivr.net/npm/x.js"></script></head>');
  }],
};
// passes that read what an earlier pass wrote, and so run after it here too; math-font reads only the
// MathML typeset-math writes (no Quarto markup), so it has no planted change; no-cdn finds pandoc's
// polyfill for MathJax until typeset-math has taken it out
const NEEDS = {"math-font": ["typeset-math"], "no-cdn": ["typeset-math"]};

test("the post-render's contract: every pass changes every page it targets on the real render", {skip}, async () => {
  const rendered = await renderedSite();
  const report = JSON.parse(readFileSync(join(rendered.dir, "raw-pages", "report.json"), "utf8"));
  assert.deepEqual(Object.keys(report), PASSES.map((p) => p.name), "the report lists every pass, in order");
  for (const p of PASSES) {
    const changes = Object.values(report[p.name]);
    assert.ok(changes.length > 0 && changes.every((n) => n > 0), `${p.name} changed something on every page it ran on: ${JSON.stringify(report[p.name])}`);
  }
  for (const p of PASSES.filter((x) => !x.site)) {
    // each page pass reached the pages it is for
    const expected = {"ojs-on-demand": [MODULE_PAGE, "modules/03-sequence-models/slides.html"], "typeset-math": [MODULE_PAGE, GLOSSARY]}[p.name] ?? [MODULE_PAGE];
    for (const rel of expected) assert.ok(report[p.name][rel] > 0, `${p.name} changed ${rel}`);
  }
  assert.deepEqual(PASSES.map((p) => p.name).filter((n) => !PLANTS[n]), ["math-font"], "every pass but math-font has a planted change");
});

test("the post-render's contract: each pass stops, naming itself and the page, on a planted change of Quarto's markup", {skip}, async () => {
  const rendered = await renderedSite();
  const {dir} = rawSite(rendered);
  const cache = new Cache(join(dir, ".cache"));
  const share = execFileSync("quarto", ["--paths"], {encoding: "utf8"}).split("\n")[1].trim();
  // the unminified runtime, which the finished site no longer has
  cpSync(join(share, "formats", "html", "ojs", "quarto-ojs-runtime.js"), join(dir, "site_libs", "quarto-ojs", "quarto-ojs-runtime.js"));
  const read = (rel) => readFileSync(join(dir, rel), "utf8");
  try {
    for (const p of PASSES) {
      const run = [...(NEEDS[p.name] ?? []).map(pass), p];
      // alone on Quarto's own markup, it works
      const ok = await runPasses(new Site({dir, project: rendered.dir, cache, quartoShare: share}), run);
      assert.ok(Object.values(ok[p.name]).some((n) => n > 0), `${p.name} alone on Quarto's raw pages changed something`);
      if (!PLANTS[p.name]) continue;
      const [what, plant] = PLANTS[p.name];
      const files = {"index.html": read("index.html"), [MODULE_PAGE]: read(MODULE_PAGE), [GLOSSARY]: read(GLOSSARY), "search.json": read("search.json")};
      const before = {...files};
      const settings = {quartoShare: share};
      plant(files, settings);
      const copy = mkdtempSync(join(tmpdir(), "postrender-plant-"));
      cpSync(dir, copy, {recursive: true});
      for (const [rel, text] of Object.entries(files)) if (!rel.startsWith("__") && text !== before[rel]) writeFileSync(join(copy, rel), text);
      if (files.__rename) {
        const [pattern, to] = files.__rename;
        const sheets = join(copy, "site_libs", "bootstrap");
        for (const name of (await import("node:fs")).readdirSync(sheets)) if (pattern.test(name)) (await import("node:fs")).renameSync(join(sheets, name), join(sheets, name.replace(pattern, to)));
      }
      await assert.rejects(runPasses(new Site({dir: copy, project: rendered.dir, cache, quartoShare: settings.quartoShare}), run),
        (err) => err instanceof ContractError && err.pass === p.name && err.message.includes(p.name),
        `${p.name} stops on a planted change: ${what}`);
      rmSync(copy, {recursive: true, force: true});
    }
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
});
