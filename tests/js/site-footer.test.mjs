// A way back from each page (on the tests' one render): the footer shows the site's version (commit
// and date, the site-stamp pass of _extensions/course/post-render/), the Quarto that rendered it (the one in .quarto-version) and
// on a module's pages its measured data's provenance; each page links to its source and to "Report an issue"
// (repo-url, repo-actions); Quarto wrote sitemap.xml (site-url) and the 404 page.
import {test} from "node:test";
import assert from "node:assert/strict";
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {dirname, join, relative, sep} from "node:path";
import {ROOT} from "./qmd-files.mjs";
import {renderedSite} from "./site-render.mjs";
import {onPath} from "./browser.mjs";
import siteStamp, {stampText, provenanceText} from "../../_extensions/course/post-render/passes/site-stamp.mjs";
import {Site, runPasses} from "../../_extensions/course/post-render/pipeline.mjs";
import {Cache} from "../../_extensions/course/post-render/cache.mjs";
import {ContractError} from "../../_extensions/course/post-render/contract.mjs";
import {handMadeInventory} from "./hand-made-inventory.mjs";

test("the stamp names the commit, its date, uncommitted changes and the Quarto version", () => {
  assert.equal(stampText({commit: "0123456789ab", date: "2026-12-01", changed: false}, "1.11.0"),
    "Site version 0123456789ab (2026-12-01) · rendered with Quarto 1.11.0");
  assert.equal(stampText({commit: "0123456789ab", date: "2026-12-01", changed: true}, "1.11.0"),
    "Site version 0123456789ab+changes (2026-12-01) · rendered with Quarto 1.11.0");
  assert.equal(stampText({commit: "not in git", date: null, changed: false}, "1.11.0"),
    "Site version not in git · rendered with Quarto 1.11.0");
});

/** A project in a temporary folder holding `files` ({path: text}). */
function tempProject(files) {
  const dir = mkdtempSync(join(tmpdir(), "site-stamp-"));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), {recursive: true});
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

const PROVENANCE = "data:\n  provenance:\n    run_phrase: full settings, seed 0, on a CPU\n    date: '2026-11-30'\n";

test("the provenance line: the module's number and its data's run, read from the project root it is given", () => {
  const root = tempProject({
    "modules/07-x/_metadata.yml": PROVENANCE, "modules/07-x/module.yml": "id: 07-x\nnumber: 7\n",
    "modules/08-y/_metadata.yml": "data:\n  provenance:\n    run_phrase: quick settings\n",
    "modules/09-z/_metadata.yml": "data:\n  title: no provenance\n",
  });
  try {
    assert.equal(provenanceText("07-x", root), "Results: Lab 7 at full settings, seed 0, on a CPU, 2026-11-30 (data/07-x/results.json)");
    assert.equal(provenanceText("08-y", root), "Results: Lab 08-y at quick settings (data/08-y/results.json)", "no module.yml: the id, no date");
    assert.equal(provenanceText("09-z", root), "");
    assert.equal(provenanceText("10-none", root), "");
  } finally {
    rmSync(root, {recursive: true, force: true});
  }
});

test("the site-stamp pass fills both footer spans, the provenance on a module's pages only; a page without them stops the render", async () => {
  const footer = '<footer><span class="site-version">Site version: not stamped</span><span class="data-provenance"></span></footer>';
  const page = (body) => `<html><head></head><body>${body}</body></html>`;
  const root = tempProject({
    "modules/07-x/_metadata.yml": PROVENANCE, "modules/07-x/module.yml": "number: 7\n",
    "_site/index.html": page(footer), "_site/modules/07-x/index.html": page(footer),
    "_site/modules/07-x/slides.html": page('<div class="reveal"></div>'),
  });
  try {
    const site = new Site({dir: join(root, "_site"), project: root, cache: new Cache(null), quartoShare: null, inventory: handMadeInventory});
    const report = await runPasses(site, [siteStamp]);
    assert.deepEqual(report["site-stamp"], {"index.html": 1, "modules/07-x/index.html": 1}, "the deck has no footer");
    const [top, inner] = site.pages.map((p) => p.html());
    for (const html of [top, inner]) assert.match(html, /<span class="site-version">Site version (not in git|[0-9a-f]{12}(\+changes)?( \(\d{4}-\d{2}-\d{2}\))?) · rendered with Quarto [^<]+<\/span>/);
    assert.match(top, /<span class="data-provenance"><\/span>/);
    assert.match(inner, /<span class="data-provenance">Results: Lab 7 at full settings, seed 0, on a CPU, 2026-11-30 \(data\/07-x\/results\.json\)<\/span>/);
    writeFileSync(join(root, "_site", "index.html"), page('<footer><span class="site-version"></span></footer>'));
    await assert.rejects(runPasses(new Site({dir: join(root, "_site"), project: root, cache: new Cache(null), quartoShare: null, inventory: handMadeInventory}), [siteStamp]),
      (e) => e instanceof ContractError && /"site-stamp"/.test(e.message) && /data-provenance/.test(e.message) && / in index\.html/.test(e.message));
  } finally {
    rmSync(root, {recursive: true, force: true});
  }
});

const skip = onPath("quarto") ? false : "quarto is not on PATH: the rendered site cannot be built here";

test("every page's footer: version, Quarto, provenance, source and issue links; sitemap and 404", {skip}, async () => {
  const {site} = await renderedSite();
  const quarto = readFileSync(join(ROOT, ".quarto-version"), "utf8").trim();
  const walk = (d) => readdirSync(d, {withFileTypes: true}).flatMap((e) => e.isDirectory()
    ? (["site_libs", "vendor"].includes(e.name) ? [] : walk(join(d, e.name))) : e.name.endsWith(".html") ? [join(d, e.name)] : []);
  const pages = walk(site).map((f) => relative(site, f).split(sep).join("/")).filter((p) => !p.endsWith("slides.html"));
  assert.ok(pages.includes("404.html") && pages.includes("modules/03-sequence-models/index.html"), pages.join(", "));
  assert.match(provenanceText("03-sequence-models", ROOT), /^Results: Lab 3 at full settings, seed \d+, on .+, \d{4}-\d{2}-\d{2} \(data\/03-sequence-models\/results\.json\)$/);
  for (const page of pages) {
    const html = readFileSync(join(site, page), "utf8");
    const stamp = /<span class="site-version">([^<]*)<\/span>/.exec(html)?.[1];
    assert.match(stamp ?? "", new RegExp(`^Site version [0-9a-f]{12}(\\+changes)? \\(\\d{4}-\\d{2}-\\d{2}\\) · rendered with Quarto ${quarto.replace(/\./g, "\\.")}$`), `${page}: ${stamp}`);
    const id = /^modules\/([^/]+)\//.exec(page)?.[1];
    const provenance = /<span class="data-provenance">([^<]*)<\/span>/.exec(html)?.[1];
    assert.equal(provenance, id ? provenanceText(id, ROOT) : "", `${page}: the data's provenance`);
    if (id) assert.ok(provenance, `${page}: no provenance for module ${id}`);
    if (page !== "404.html") {
      assert.match(html, /href="https:\/\/github\.com\/[^"]+\/blob\/[^"]+\.qmd"[^>]*>[\s\S]{0,80}View source/, `${page}: View source`);
      assert.match(html, /href="https:\/\/github\.com\/[^"]+\/issues\/new"[^>]*>[\s\S]{0,80}Report an issue/, `${page}: Report an issue`);
    }
  }
  const sitemap = readFileSync(join(site, "sitemap.xml"), "utf8");
  for (const p of ["index.html", "modules/03-sequence-models/index.html", "modules/03-sequence-models/lab.html", "modules/03-sequence-models/glossary.html"])
    assert.ok(sitemap.includes(`/${p}</loc>`), `sitemap.xml lists ${p}`);
  assert.ok(existsSync(join(site, "404.html")));
});
