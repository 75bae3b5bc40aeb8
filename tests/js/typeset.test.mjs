// scripts/typeset.mjs, the render's last step, on small pages shaped like Quarto's output (no Quarto
// needed): formulas become MathML (a deck's too) with no TeX left, numbered equations keep their number
// beside a scrolling body, the MathJax <script> goes, tables and long formulas get scroll boxes,
// collapsible callouts become buttons, and a TeX error names the page and the formula.
import {test} from "node:test";
import assert from "node:assert/strict";
import {mkdtempSync, mkdirSync, readdirSync, writeFileSync, readFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {typesetPage, typesetSite, TexError} from "../../scripts/typeset.mjs";

const page = (body) => `<!doctype html><html><head>
<script defer="" src="../../vendor/mathjax/tex-chtml-full.js" type="text/javascript"></script>
</head><body>${body}</body></html>`;

test("a numbered equation: typeset without its \\tag as MathML, the number beside a focusable scrolling body", () => {
  const {html, count} = typesetPage(page(
    '<p><span id="eq-rnn-step"><span class="math display">\\[a_t = W h_{t-1} &lt; b \\tag{1}\\]</span></span></p>'), "../../F.woff");
  assert.equal(count, 1);
  assert.match(html, /<span class="math display numbered"><span class="equation-body" tabindex="0"><math display="block">/);
  assert.match(html, /<\/math><\/span><span class="equation-number">\(1\)<\/span><\/span><\/span><\/p>/);
  assert.doesNotMatch(html, /\\tag|\\\[|tex-chtml-full\.js/);
  assert.match(html, /<mo lspace="0.2778em" rspace="0em">&lt;<\/mo>/, "MathML the browser draws, with the unescaped < and TeX's space");
  assert.match(html, /<link rel="preload" href="\.\.\/\.\.\/F\.woff" as="font" type="font\/woff" crossorigin="">\n<\/head>/, "the math font asked for in the head");
  assert.doesNotMatch(html, /<svg|mjx-|MJX/, "no SVG, no MathJax markup or styles");
});

test("inline formulas: short ones flow in the text, a long one scrolls in its own focusable box", () => {
  const short = "\\(h_t\\)";
  const long = "\\(P(w_t \\mid \\text{context}) = (c(\\text{context}, w_t) + k) / (c(\\text{context}) + k\\lvert V \\rvert)\\)";
  const {html, count} = typesetPage(page(`<p><span class="math inline">${short}</span> and <span class="math inline">${long}</span></p>`), "F");
  assert.equal(count, 2);
  assert.equal((html.match(/<span class="math inline">/g) || []).length, 1);
  assert.equal((html.match(/<span class="math inline wide" tabindex="0">/g) || []).length, 1);
});

test("tables scroll in their own box; figures and callouts are reached by keyboard", () => {
  const {html} = typesetPage(page(`<table class="table"><caption>T</caption><tr><td>1</td></tr></table>
<figure class="quarto-float"><div aria-describedby="fig-a-caption">
<img src="f.svg"></div><figcaption id="fig-a-caption">F</figcaption></figure>
<div class="callout-header d-flex align-content-center collapsed" data-bs-toggle="collapse" data-bs-target=".callout-2-contents" aria-controls="callout-2" aria-expanded="false" aria-label="Toggle callout">`), "F");
  assert.match(html, /<div class="table-scroll" tabindex="0"><table class="table">[\s\S]*<\/table><\/div>/);
  assert.match(html, /<div aria-describedby="fig-a-caption" tabindex="0">\n<img src="f\.svg">/);
  assert.match(html, /data-bs-toggle="collapse" data-bs-target="\.callout-2-contents" aria-controls="callout-2" aria-expanded="false" role="button" tabindex="0">/);
  assert.doesNotMatch(html, /Toggle callout/);
  assert.match(html, /addEventListener\("keydown"[\s\S]*<\/script>\n<\/body>/);
});

test("a TeX error stops with the page and the formula; a reveal.js deck is typeset and loads no MathJax", () => {
  assert.throws(() => typesetPage(page('<span class="math inline">\\(\\frac{1}{\\)</span>'), "F", "x.html"),
    (e) => e instanceof TexError && /x\.html: TeX error in \\\(\\frac\{1\}\{\\\)/.test(e.message));
  const deck = `<html><head>
  <script src="../../site_libs/revealjs/plugin/math/math.js"></script>
</head><body><div class="reveal"><span class="math inline">\\(x\\)</span>
<span class="math display">\\[y \\tag{3}\\]</span></div>
<script>Reveal.initialize({plugins: [QuartoSupport,
          RevealMath,
          RevealNotes]});</script></body></html>`;
  const {html, count} = typesetPage(deck, "F");
  assert.equal(count, 2);
  assert.doesNotMatch(html, /plugin\/math|RevealMath|\\\(|\\\[/);
  assert.match(html, /plugins: \[QuartoSupport,\n +RevealNotes\]/);
  assert.match(html, /<span class="math inline"><math><mi>x<\/mi><\/math><\/span>/);
  assert.match(html, /<span class="math display numbered"><span class="equation-body" tabindex="0"><math display="block">[\s\S]*<\/math><\/span><span class="equation-number">\(3\)<\/span>/,
    "numbered as on the pages");
  assert.doesNotMatch(html, /<svg|mjx-|MJX/, "no SVG, no MathJax markup or styles");
  // the deck loads no site.css: the font's @font-face comes with it, from the same address as the preload
  assert.match(html, /@font-face \{ font-family: "Course Math";[^}]*src: url\("F"\) format\("woff"\); \}<\/style>\n<link rel="preload" href="F" as="font"/);
  assert.doesNotMatch(html, /table-scroll/, "the page-only steps leave a deck alone");
});

test("a site: every page typeset, each asking for the math font from where it is", () => {
  const site = mkdtempSync(join(tmpdir(), "typeset-"));
  mkdirSync(join(site, "modules", "m"), {recursive: true});
  writeFileSync(join(site, "index.html"), page('<span class="math inline">\\(x\\)</span>'));
  writeFileSync(join(site, "modules", "m", "index.html"), page('<span class="math inline">\\(y\\)</span>'));
  assert.deepEqual(typesetSite(site), {pages: 2, formulas: 2});
  const top = readFileSync(join(site, "index.html"), "utf8"), inner = readFileSync(join(site, "modules", "m", "index.html"), "utf8");
  assert.match(top, /<math><mi>x<\/mi><\/math>/);
  assert.match(inner, /<math><mi>y<\/mi><\/math>/);
  assert.match(top, /<link rel="preload" href="site_libs\/course-math\/course-math\.woff"/, "the font, from where each page is");
  assert.match(inner, /<link rel="preload" href="\.\.\/\.\.\/site_libs\/course-math\/course-math\.woff"/);
});

test("less to load: the dark theme waits for dark mode", async () => {
  const {darkThemeOnDemand} = await import("../../scripts/typeset.mjs");
  const links = `<link href="b.min.css" rel="stylesheet" class="quarto-color-scheme" id="quarto-bootstrap" data-mode="light">
<link href="b-dark.min.css" rel="stylesheet" append-hash="true" class="quarto-color-scheme quarto-color-alternate" id="quarto-bootstrap" data-mode="dark">`;
  const out = darkThemeOnDemand(links);
  assert.match(out, /href="b\.min\.css" rel="stylesheet"/);
  assert.match(out, /href="b-dark\.min\.css" rel="disabled-stylesheet"/);
});

test("a finished page is left alone; a page's formulas come from the cache when unchanged", () => {
  const site = mkdtempSync(join(tmpdir(), "typeset-cache-"));
  const cache = join(site, ".cache");
  const source = page('<table><tr><td>1</td></tr></table><span class="math inline">\\(x^2\\)</span>');
  writeFileSync(join(site, "a.html"), source);
  assert.deepEqual(typesetSite(site, cache), {pages: 1, formulas: 1});
  const first = readFileSync(join(site, "a.html"), "utf8");
  assert.deepEqual(typesetSite(site, cache), {pages: 0, formulas: 0}, "a second run (quarto preview) skips the finished page");
  assert.equal(readFileSync(join(site, "a.html"), "utf8"), first, "tables are not wrapped twice");
  const [entry] = readdirSync(cache);
  writeFileSync(join(cache, entry), JSON.stringify({markups: ["<b>cached</b>"]}));
  writeFileSync(join(site, "a.html"), source);                        // the page rendered again, same formulas
  writeFileSync(join(cache, "stale.json"), "{}");
  typesetSite(site, cache);
  const again = readFileSync(join(site, "a.html"), "utf8");
  assert.match(again, /<b>cached<\/b>/);
  assert.deepEqual(readdirSync(cache), [entry], "entries no page used are removed");
});
