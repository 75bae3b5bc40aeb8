// _extensions/course/figure-size.lua: each SVG figure sized from its file and loaded lazily, run by
// pandoc (pypandoc-binary's, from requirements.txt) on small documents, and on the real render: every
// SVG figure of every page carries its file's size and loading="lazy" (a Quarto release that hands the
// filter its images otherwise fails here, not on a reader's page, whose text would move).
import {test} from "node:test";
import assert from "node:assert/strict";
import {spawnSync} from "node:child_process";
import {mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {dirname, join} from "node:path";
import * as cheerio from "cheerio";
import {ROOT, findPandoc} from "./qmd-files.mjs";
import {onPath} from "./browser.mjs";
import {renderedSite} from "./site-render.mjs";
import {sitePages} from "../../_extensions/course/post-render/pipeline.mjs";

const FILTER = join(ROOT, "_extensions", "course", "figure-size.lua");

/** pandoc's HTML of `markdown` (a page at page/p.md beside `files`) with the filter: {status, html, stderr}. */
function withFilter(files, markdown) {
  const pandoc = findPandoc();
  assert.ok(pandoc, "no pandoc: `pip install -r requirements.txt` installs pypandoc-binary's");
  const dir = mkdtempSync(join(tmpdir(), "figure-size-"));
  try {
    for (const [name, text] of Object.entries({...files, "page/p.md": markdown})) {
      mkdirSync(dirname(join(dir, name)), {recursive: true});
      writeFileSync(join(dir, name), text);
    }
    const r = spawnSync(pandoc, ["page/p.md", "-L", FILTER, "-t", "html"], {cwd: dir, encoding: "utf8"});
    return {status: r.status, html: r.stdout, stderr: r.stderr};
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
}

const imgs = (html) => cheerio.load(html)("img").toArray().map((el) => el.attribs);

test("an SVG figure gets its file's size in CSS pixels and loads near the screen; other images are left alone", () => {
  const {status, html, stderr} = withFilter({
    "figures/plot.svg": '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="574.02pt" height="308.22pt" viewBox="0 0 574.02 308.22"></svg>',
    "figures/diagram.svg": '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0, 0, 980, 400" role="img"></svg>',
  }, ["![a plot](../figures/plot.svg){#fig-plot}", "![a diagram](../figures/diagram.svg){.diagram}", "![a photo](photo.png)",
    '![sized already](../figures/plot.svg){width="10"}', "![elsewhere](https://example.org/x.svg)"].join("\n\n"));
  assert.equal(status, 0, stderr);
  const [plot, diagram, photo, sized, elsewhere] = imgs(html);
  // points are 4/3 of a CSS pixel: the size the browser gives the file itself, so nothing moves when it arrives
  assert.deepEqual([plot.width, plot.height, plot.loading, plot.decoding], ["765", "411", "lazy", "async"]);
  assert.deepEqual([diagram.width, diagram.height, diagram.loading], ["980", "400", "lazy"]);
  for (const img of [photo, elsewhere]) assert.deepEqual([img.width, img.height, img.loading], [undefined, undefined, undefined], img.src);
  assert.deepEqual([sized.width, sized.loading], ["10", undefined]);
});

test("an SVG figure whose size cannot be read, or that is not there, stops the render naming it", () => {
  for (const [files, src] of [[{"figures/bad.svg": "<svg></svg>"}, "../figures/bad.svg"], [{}, "../figures/missing.svg"],
    [{"figures/em.svg": '<svg width="10em" height="4em"></svg>'}, "../figures/em.svg"]]) {
    const {status, stderr} = withFilter(files, `![x](${src})`);
    assert.notEqual(status, 0, src);
    assert.match(stderr, new RegExp(`course figure-size\\.lua: expected a readable size .* in the SVG figure ${src.replace(/\./g, "\\.")}`));
  }
});

const skip = onPath("quarto") ? false : "quarto is not on PATH: the rendered site cannot be built here";

test("on the rendered site every page's SVG figures carry their size and load lazily", {skip}, async () => {
  const {site} = await renderedSite();
  const svgs = sitePages(site).flatMap((page) => cheerio.load(readFileSync(page, "utf8"))("img.figure-img").toArray()
    .map((el) => ({page, ...el.attribs})).filter((img) => img.src.endsWith(".svg") && !img.src.includes("://")));
  assert.ok(svgs.length >= 5, `the site's SVG figures: ${svgs.length}`);
  for (const f of svgs) {
    const onDeck = /slides\.html$/.test(f.page);
    if (onDeck) assert.equal(f.loading, undefined, `${f.src} on a deck: reveal.js loads its slides' images`);
    else assert.ok(Number(f.width) > 100 && Number(f.height) > 50 && f.loading === "lazy", `${f.page}: ${JSON.stringify(f)}`);
  }
});
