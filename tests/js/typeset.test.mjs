// scripts/typeset.mjs, the render's last step, on small pages shaped like Quarto's output (no Quarto
// needed): formulas become MathML (a deck's: MathJax's SVG) with no TeX left, numbered equations keep their number
// beside a scrolling body, the MathJax <script> goes, tables and long formulas get scroll boxes,
// collapsible callouts become buttons, and a TeX error names the page and the formula.
import {test} from "node:test";
import assert from "node:assert/strict";
import {mkdtempSync, mkdirSync, readdirSync, writeFileSync, readFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {typesetPage, typesetSite, TexError, pageTypesetter, flattenGroups} from "../../scripts/typeset.mjs";

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
  assert.match(html, /<span class="math display"><mjx-container[^>]*display="true"[\s\S]*\(3\)/, "MathJax's own tag, as in the browser");
  assert.doesNotMatch(html, /equation-number|table-scroll/, "the page-only steps leave a deck alone");
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

// ---- a deck's formulas are MathJax's SVG: its groups taken out, every mark drawn where it was, with fewer elements

/** [a b c d e f] of an SVG transform list (translate, scale and matrix, as MathJax writes them). */
const compose = ([a, b, c, d, e, f], [A, B, C, D, E, F]) =>
  [a * A + c * B, b * A + d * B, a * C + c * D, b * C + d * D, a * E + c * F + e, b * E + d * F + f];
function matrixOf(list = "") {
  let m = [1, 0, 0, 1, 0, 0];
  for (const [, fn, args] of list.matchAll(/(\w+)\(([^)]*)\)/g)) {
    const n = args.split(/[\s,]+/).filter(Boolean).map(Number);
    const step = fn === "translate" ? [1, 0, 0, 1, n[0], n[1] ?? 0] : fn === "scale" ? [n[0], 0, 0, n[1] ?? n[0], 0, 0]
      : fn === "matrix" ? n : assert.fail(`a transform the test does not know: ${fn}`);
    m = compose(m, step);
  }
  return m;
}

/** Each mark (glyph, rule, line, text) under `node`, in drawing order: its element, what it draws
    and its transform to the formula's <svg>, composed through every group above it. */
function marks(node, above = [1, 0, 0, 1, 0, 0], out = []) {
  for (const child of node.children ?? []) {
    if (!child.kind || child.kind.startsWith("#")) continue;
    const m = child.kind === "svg" ? above : compose(above, matrixOf(child.attributes?.transform));
    if (["g", "svg", "mjx-assistive-mml", "math"].includes(child.kind) || child.kind.startsWith("m")) {
      if (child.kind !== "mjx-assistive-mml") marks(child, m, out);
    } else {
      // what it draws: its attributes but its transform (composed into m) and MathJax's data-*
      const drawn = Object.entries(child.attributes ?? {}).filter(([k]) => k !== "transform" && !k.startsWith("data-"));
      out.push({kind: child.kind, drawn: JSON.stringify(drawn), m: m.map((x) => Math.round(x * 1000) / 1000)});
    }
  }
  return out;
}

test("the SVG's groups taken out: every glyph and rule drawn at the same place, with fewer elements", () => {
  const {doc} = pageTypesetter();
  const formulas = [
    ["a_t = W h_{t-1} + U x_t + b", false],
    ["\\frac{\\partial h_T}{\\partial h_s} = \\prod_{t=s+1}^{T} \\operatorname{diag}(1-h_t^2)\\, W", true],
    ["\\sqrt{\\textstyle\\sum_i x_i^2} \\le \\left\\lVert W \\right\\rVert^{T-s}", false],
    ["\\begin{bmatrix} f_t \\\\ i_t \\end{bmatrix} = \\sigma\\!\\left(W \\begin{bmatrix} h_{t-1} \\\\ x_t \\end{bmatrix}\\right)", true],
    ["\\underbrace{c_{t-1} \\odot f_t}_{\\text{kept}} + \\hat{y}", true],
  ];
  let before = 0, after = 0;
  for (const [tex, display] of formulas) {
    const node = doc.convert(tex, {display, em: 16, ex: 8, containerWidth: 1280});
    // the drawing's elements (the hidden MathML beside it is not touched)
    const count = (n) => (n.children ?? []).reduce((k, c) => k + (c.kind === "mjx-assistive-mml" ? 0 : 1 + count(c)), 0);
    const drawn = marks(node), n0 = count(node);
    flattenGroups(node);
    assert.deepEqual(marks(node), drawn, tex);
    before += n0; after += count(node);
  }
  assert.ok(after < 0.7 * before, `the drawings' elements: ${before} before, ${after} after`);
});
