// The post-render's page passes for math and access (_extensions/course/post-render/passes/: typeset-math,
// callout-buttons, focusable-figures, dark-theme-on-demand), on small pages shaped like Quarto's
// output (no Quarto needed): formulas, as the course's math.lua hands them over, become MathML (a deck's
// too) with no TeX left, numbered equations keep their number beside a scrolling body, long formulas get scroll boxes,
// figures are focusable, collapsible callouts become buttons, the dark theme waits for dark mode, and a
// TeX error names the page and the formula.  A finished page is left alone and formulas come from the
// cache (_extensions/course/post-render/cache.mjs).  (Tables are wrapped by _extensions/course/table-scroll.lua.)
import {test} from "node:test";
import assert from "node:assert/strict";
import {existsSync, mkdtempSync, mkdirSync, readdirSync, writeFileSync, readFileSync, rmSync} from "node:fs";
import {tmpdir} from "node:os";
import {dirname, join} from "node:path";
import {Site, runPasses, finishSite, FINISHED} from "../../_extensions/course/post-render/pipeline.mjs";
import {Cache} from "../../_extensions/course/post-render/cache.mjs";
import {ContractError} from "../../_extensions/course/post-render/contract.mjs";
import typesetMath, {TexError} from "../../_extensions/course/post-render/passes/typeset-math.mjs";
import calloutButtons from "../../_extensions/course/post-render/passes/callout-buttons.mjs";
import focusableFigures from "../../_extensions/course/post-render/passes/focusable-figures.mjs";
import darkThemeOnDemand from "../../_extensions/course/post-render/passes/dark-theme-on-demand.mjs";
import {handMadeInventory} from "./hand-made-inventory.mjs";

const ROOT = join(dirname(new URL(import.meta.url).pathname), "..", "..");
const FONT = "site_libs/quarto-contrib/course-math/course-math.woff";

// a page at modules/m/ (its math stylesheet, math.lua's dependency, two folders up)
const page = (body, head = "", toRoot = "../../") => `<!doctype html><html><head>
<link href="${toRoot}site_libs/quarto-contrib/course-math/math.css" rel="stylesheet">
${head}</head><body>${body}</body></html>`;
const tex = (display, text, number) => display
  ? `<span class="course-tex display"${number ? ` data-number="${number}"` : ""}>\\[${text}\\]</span>`
  : `<span class="course-tex inline">\\(${text}\\)</span>`;

/** A site in a temporary folder holding `files` ({path: html}). */
function tempSite(files) {
  const dir = mkdtempSync(join(tmpdir(), "typeset-"));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), {recursive: true});
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

const siteOf = (dir, cache = new Cache(null)) => new Site({dir, project: ROOT, cache, quartoShare: null, inventory: handMadeInventory});

/** Run `passes` over one page at `rel`: {html, report}. */
async function runOn(html, passes, rel = "modules/m/index.html") {
  const dir = tempSite({[rel]: html});
  try {
    const site = siteOf(dir);
    const report = await runPasses(site, passes);
    return {html: site.pages[0].html(), report};
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
}

test("a numbered equation: typeset as MathML, its number beside a focusable scrolling body", async () => {
  const {html, report} = await runOn(page(
    `<p><span id="eq-rnn-step">${tex(true, "a_t = W h_{t-1} &lt; b", "1")}</span></p>`), [typesetMath]);
  assert.deepEqual(report["typeset-math"], {"modules/m/index.html": 1});
  assert.match(html, /<span class="math display numbered"><span class="equation-body" tabindex="0"><math display="block">/);
  assert.match(html, /<\/math><\/span><span class="equation-number">\(1\)<\/span><\/span><\/span><\/p>/);
  assert.doesNotMatch(html, /\\\[|course-tex/);
  assert.match(html, /<mo lspace="0.2778em" rspace="0em">&lt;<\/mo>/, "MathML the browser draws, with the unescaped < and TeX's space");
  assert.match(html, /<link rel="preload" href="\.\.\/\.\.\/site_libs\/quarto-contrib\/course-math\/course-math\.woff" as="font" type="font\/woff" crossorigin="">\n<\/head>/,
    "the math font asked for in the head");
  assert.doesNotMatch(html, /<svg|mjx-|MJX/, "no SVG, no MathJax markup or styles");
});

test("inline formulas: short ones flow in the text, a long one scrolls in its own focusable box", async () => {
  const short = tex(false, "h_t");
  const long = tex(false, "P(w_t \\mid \\text{context}) = (c(\\text{context}, w_t) + k) / (c(\\text{context}) + k\\lvert V \\rvert)");
  const {html, report} = await runOn(page(`<p>${short} and ${long}</p>`), [typesetMath]);
  assert.deepEqual(report["typeset-math"], {"modules/m/index.html": 2});
  assert.equal((html.match(/<span class="math inline">/g) || []).length, 1);
  assert.equal((html.match(/<span class="math inline wide" tabindex="0">/g) || []).length, 1);
});

test("figures and callouts are reached by keyboard", async () => {
  const {html, report} = await runOn(page(`<figure class="quarto-float quarto-float-fig figure"><div aria-describedby="fig-a-caption">
<img src="f.svg"></div><figcaption id="fig-a-caption">F</figcaption></figure>
<div class="callout-header d-flex align-content-center collapsed" data-bs-toggle="collapse" data-bs-target=".callout-2-contents" aria-controls="callout-2" aria-expanded="false" aria-label="Toggle callout">
<div class="callout-title-container flex-fill">Try it</div></div>
<div id="callout-2" class="callout-2-contents callout-collapse collapse"><div class="callout-body-container callout-body"><p>x</p></div></div>`),
  [calloutButtons, focusableFigures]);
  assert.deepEqual(report, {"callout-buttons": {"modules/m/index.html": 1}, "focusable-figures": {"modules/m/index.html": 1}});
  assert.match(html, /<div aria-describedby="fig-a-caption" tabindex="0">\n<img src="f\.svg">/);
  assert.match(html, /data-bs-toggle="collapse" data-bs-target="\.callout-2-contents" aria-controls="callout-2" aria-expanded="false" role="button" tabindex="0">/);
  assert.doesNotMatch(html, /Toggle callout/);
  assert.match(html, /<script id="callout-keyboard">[^<]*addEventListener\("keydown"[^<]*<\/script><\/body>/, "Enter and Space open it, from the end of the body");
});

test("each page pass stops the render, naming itself and the page, where Quarto's markup is not there", async () => {
  const cases = [
    // a collapsible callout whose header is not the <div aria-label="Toggle callout"> the pass makes a button
    [calloutButtons, '<button class="callout-header" data-bs-toggle="collapse">T</button><div class="callout-collapse collapse"></div>'],
    // a figure without the image box
    [focusableFigures, '<figure class="quarto-float quarto-float-fig"><img src="f.svg"></figure>'],
    // a page without the dark theme's stylesheet
    [darkThemeOnDemand, "<p>x</p>"],
    // a formula, but not the math stylesheet math.lua links
    [typesetMath, `<html><head></head><body>${tex(false, "x")}</body></html>`],
    // a formula math.lua did not hand over: pandoc's own (html-math-method: plain)
    [typesetMath, '<span class="math inline">x</span>'],
    // the course's span without its TeX delimiters
    [typesetMath, '<span class="course-tex inline">x</span>'],
  ];
  for (const [pass, body] of cases) {
    const html = body.startsWith("<html>") ? body : page(body);
    await assert.rejects(runOn(html, [pass], "modules/m/lab.html"), (e) => e instanceof ContractError
      && e.message.includes(`"${pass.name}"`) && e.message.includes("modules/m/lab.html"), pass.name);
  }
});

test("a TeX error stops with the page and the formula; a reveal.js deck is typeset as the pages are", async () => {
  await assert.rejects(runOn(page(tex(false, "\\frac{1}{"), "", ""), [typesetMath], "x.html"),
    (e) => e instanceof TexError && /x\.html: TeX error in \\\(\\frac\{1\}\{\\\)/.test(e.message));
  const deck = `<html><head>
  <link href="../../site_libs/quarto-contrib/course-math/math.css" rel="stylesheet">
  <link href="b-dark.min.css" rel="stylesheet" class="quarto-color-scheme quarto-color-alternate">
</head><body><div class="reveal">${tex(false, "x")}
${tex(true, "y", "3")}
<figure class="quarto-float quarto-float-fig"><div aria-describedby="c"><img src="f.svg"></div></figure></div>
</body></html>`;
  const {html, report} = await runOn(deck, [typesetMath, focusableFigures, darkThemeOnDemand], "modules/m/slides.html");
  assert.deepEqual(report["typeset-math"], {"modules/m/slides.html": 2});
  assert.doesNotMatch(html, /\\\(|\\\[/);
  assert.match(html, /<span class="math inline"><math><mi>x<\/mi><\/math><\/span>/);
  assert.match(html, /<span class="math display numbered"><span class="equation-body" tabindex="0"><math display="block">[\s\S]*<\/math><\/span><span class="equation-number">\(3\)<\/span>/,
    "numbered as on the pages");
  assert.doesNotMatch(html, /<svg|mjx-|MJX/, "no SVG, no MathJax markup or styles");
  assert.match(html, /<link rel="preload" href="\.\.\/\.\.\/site_libs\/quarto-contrib\/course-math\/course-math\.woff" as="font"/);
  // the page-only passes leave a deck alone
  assert.deepEqual([report["focusable-figures"], report["dark-theme-on-demand"]], [{}, {}]);
  assert.match(html, /<div aria-describedby="c"><img/);
  assert.match(html, /rel="stylesheet" class="quarto-color-scheme quarto-color-alternate"/);
});

test("a site: every page typeset, each asking for the math font from where it is", async () => {
  const dir = tempSite({
    "index.html": page(tex(false, "x"), "", ""),
    "modules/m/index.html": page(tex(false, "y")),
  });
  try {
    assert.deepEqual((await finishSite(siteOf(dir), [typesetMath]))["typeset-math"], {"index.html": 1, "modules/m/index.html": 1});
    const top = readFileSync(join(dir, "index.html"), "utf8"), inner = readFileSync(join(dir, "modules", "m", "index.html"), "utf8");
    assert.match(top, /<math><mi>x<\/mi><\/math>/);
    assert.match(inner, /<math><mi>y<\/mi><\/math>/);
    assert.match(top, new RegExp(`<link rel="preload" href="${FONT}"`), "the font, from where each page is");
    assert.match(inner, new RegExp(`<link rel="preload" href="\\.\\./\\.\\./${FONT}"`));
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
});

test("less to load: the dark theme waits for dark mode", async () => {
  const links = `<link href="b.min.css" rel="stylesheet" class="quarto-color-scheme" id="quarto-bootstrap" data-mode="light">
<link href="b-dark.min.css" rel="stylesheet" append-hash="true" class="quarto-color-scheme quarto-color-alternate" id="quarto-bootstrap" data-mode="dark">`;
  // Quarto's colour-scheme toggle, which turns them on again by rel (quarto-dependencies.json: color-scheme-toggle)
  const toggle = "<script>const toggleColorMode = () => { document.querySelectorAll('link.quarto-color-scheme.quarto-color-alternate')"
    + ".forEach((stylesheet) => { stylesheet.rel = 'stylesheet'; }); };</script>";
  const {html, report} = await runOn(page(`<p>x</p>${toggle}`, links), [darkThemeOnDemand]);
  assert.deepEqual(report["dark-theme-on-demand"], {"modules/m/index.html": 1});
  assert.match(html, /href="b\.min\.css" rel="stylesheet"/);
  assert.match(html, /href="b-dark\.min\.css" rel="disabled-stylesheet"/);
  // a toggle that turns them on otherwise would leave a reader in dark mode with no dark theme
  await assert.rejects(runOn(page(`<p>x</p>${toggle.replace("stylesheet.rel = 'stylesheet'", "stylesheet.disabled = false")}`, links), [darkThemeOnDemand]),
    (e) => e instanceof ContractError && e.pass === "dark-theme-on-demand");
});

test("a finished page is left alone; a page's formulas come from the cache when unchanged", async () => {
  const dir = tempSite({});
  const cacheDir = join(dir, ".cache"), site = join(dir, "_site");
  try {
    const source = page(tex(false, "x^2"), "", "");
    mkdirSync(site);
    writeFileSync(join(site, "a.html"), source);
    assert.deepEqual((await finishSite(siteOf(site, new Cache(cacheDir)), [typesetMath]))["typeset-math"], {"a.html": 1});
    const first = readFileSync(join(site, "a.html"), "utf8");
    assert.match(first, new RegExp(`<meta name="${FINISHED}"`), "the page is marked finished");
    assert.deepEqual((await finishSite(siteOf(site, new Cache(cacheDir)), [typesetMath]))["typeset-math"], {},
      "a second run (quarto preview) skips the finished page");
    assert.equal(readFileSync(join(site, "a.html"), "utf8"), first, "the finished page is not changed again");
    const [entry] = readdirSync(cacheDir);
    assert.match(entry, /^typeset-math-[0-9a-f]{24}\.json$/);
    writeFileSync(join(cacheDir, entry), JSON.stringify(["<b>cached</b>"]));
    writeFileSync(join(site, "a.html"), source);                        // the page rendered again, same formulas
    writeFileSync(join(cacheDir, "stale.json"), "{}");
    const cache = new Cache(cacheDir);
    await finishSite(siteOf(site, cache), [typesetMath]);
    assert.match(readFileSync(join(site, "a.html"), "utf8"), /<b>cached<\/b>/);
    cache.prune();
    assert.deepEqual(readdirSync(cacheDir), [entry], "entries no page used are removed");
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
});

test("the cache: a second lookup with the same key (another run) computes nothing; prune() removes what no lookup used", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cache-"));
  try {
    let computed = 0;
    const compute = () => { computed++; return {value: computed}; };
    const key = Cache.key("a", ["formulas"], Buffer.from("bytes"));
    assert.equal(key, Cache.key("a", ["formulas"], Buffer.from("bytes")));
    assert.notEqual(key, Cache.key("a", ["formulas"], Buffer.from("other")));
    assert.deepEqual(await new Cache(dir).get("p", key, compute), {value: 1});
    assert.deepEqual(await new Cache(dir).get("p", key, compute), {value: 1}, "the kept value");
    assert.equal(computed, 1, "computed again for a key already kept");
    assert.deepEqual(await new Cache(dir).get("p", Cache.key("b"), compute), {value: 2}, "a new key is computed");
    // an entry cut short is only a miss
    writeFileSync(join(dir, `p-${key}.json`), '{"value": ');
    const cache = new Cache(dir);
    assert.deepEqual(await cache.get("p", key, compute), {value: 3});
    cache.prune();
    assert.deepEqual(readdirSync(dir), [`p-${key}.json`], "the entry this run did not use is removed");
    // no folder: no cache, every lookup computed
    const none = new Cache(null);
    await none.get("p", key, compute);
    await none.get("p", key, compute);
    assert.equal(computed, 5);
    none.prune();
    assert.ok(existsSync(join(dir, `p-${key}.json`)));
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
});
