// The post-render's page-speed passes (_extensions/course/post-render/passes/), each on small pages shaped like
// Quarto's output in a temporary site: the OJS runtime and the cells' source loaded on demand (and
// Quarto's minified runtime), the hidden source of echo: false cells left out, the head's scripts
// deferred in the order they ran, DOMContentLoaded listeners in turns, every block laid out before a
// jump, the navbar search and the hover previews made on first use, the icon fonts asked for early,
// the headings' AnchorJS links written in, the icon font cut to the icons
// the site names, and no CDN left.  Each pass, on a page (or site) without the Quarto markup it
// expects, stops with a ContractError naming itself and the page.  (The rendered site, with every
// pass, is checked in a browser by the site-*.test.mjs suites, and each pass against Quarto's real
// markup by postrender-contract.test.mjs.)
import {test} from "node:test";
import assert from "node:assert/strict";
import {cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {dirname, join} from "node:path";
import {execFileSync, spawnSync} from "node:child_process";
import * as cheerio from "cheerio";
import {ROOT} from "./qmd-files.mjs";
import {Site, runPasses, finishSite} from "../../_extensions/course/post-render/pipeline.mjs";
import {Cache} from "../../_extensions/course/post-render/cache.mjs";
import {ContractError} from "../../_extensions/course/post-render/contract.mjs";
import {quartoShare} from "../../_extensions/course/post-render/run.mjs";
import ojsOnDemand, {RUNTIME, RUNTIME_MIN} from "../../_extensions/course/post-render/passes/ojs-on-demand.mjs";
import minifiedOjsRuntime from "../../_extensions/course/post-render/passes/minified-ojs-runtime.mjs";
import hiddenCellCode from "../../_extensions/course/post-render/passes/hidden-cell-code.mjs";
import deferredHeadScripts from "../../_extensions/course/post-render/passes/deferred-head-scripts.mjs";
import domReadyInTurns from "../../_extensions/course/post-render/passes/dom-ready-in-turns.mjs";
import searchOnFirstUse, {searchIconPath} from "../../_extensions/course/post-render/passes/search-on-first-use.mjs";
import tippyOnFirstHover from "../../_extensions/course/post-render/passes/tippy-on-first-hover.mjs";
import iconFontsEarly, {anchorRules} from "../../_extensions/course/post-render/passes/icon-fonts-early.mjs";
import headingAnchors, {anchorjsLink} from "../../_extensions/course/post-render/passes/heading-anchors.mjs";
import iconFont from "../../_extensions/course/post-render/passes/icon-font.mjs";
import noCdn from "../../_extensions/course/post-render/passes/no-cdn.mjs";
import {PASSES} from "../../_extensions/course/post-render/passes/index.mjs";
import {pageScript} from "../../_extensions/course/post-render/page-scripts.mjs";
import {handMadeInventory} from "./hand-made-inventory.mjs";

const SHARE = quartoShare();

// Quarto's scripts as far as the passes read them (quarto-dependencies.json's checks), in every site made here
const QUARTO_LIBS = {
  "site_libs/quarto-html/quarto.js": 'window.document.addEventListener("DOMContentLoaded", function (_event) {});',
  "site_libs/quarto-nav/quarto-nav.js": 'window.document.addEventListener("DOMContentLoaded", function () {});',
  "site_libs/quarto-search/quarto-search.js": "window.quartoOpenSearch = () => {};",
  "site_libs/quarto-html/tippy.umd.min.js": "(e=e||self).tippy=t(e.Popper)",
};

/** A site in a temporary folder holding `files` ({path: text or bytes}) and QUARTO_LIBS. */
function tempSite(files = {}) {
  const dir = mkdtempSync(join(tmpdir(), "postrender-"));
  for (const [rel, data] of Object.entries({...QUARTO_LIBS, ...files})) {
    mkdirSync(dirname(join(dir, rel)), {recursive: true});
    writeFileSync(join(dir, rel), data);
  }
  return dir;
}

const siteOf = (dir, {cache = new Cache(null), quartoShare = SHARE} = {}) => new Site({dir, project: ROOT, cache, quartoShare, inventory: handMadeInventory});

/** Run `passes` over a temporary site of `files`: {html: {page: html as finished in memory}, report, site, dir}. */
async function run(files, passes, settings = {}) {
  const dir = tempSite(files);
  try {
    const site = siteOf(dir, settings);
    const report = await runPasses(site, passes);
    return {html: Object.fromEntries(site.pages.map((p) => [p.rel, p.html()])), report, site, dir};
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
}

/** That `pass`, run over a temporary site of `files`, stops with a ContractError naming it and `where`. */
async function stops(pass, files, where, settings = {}) {
  await assert.rejects(run(files, [pass], settings), (e) => {
    assert.ok(e instanceof ContractError, `${pass.name}: ${e.stack}`);
    assert.ok(e.message.includes(`"${pass.name}"`), `${pass.name}: the message names the pass: ${e.message}`);
    assert.ok(e.message.includes(` in ${where}`), `${pass.name}: the message names ${where}: ${e.message}`);
    assert.equal(e.pass, pass.name);
    return true;
  });
}

const deckOf = (html) => html.replace("<body>", '<body><div class="reveal">');
/** `html` as the passes' serializer writes it back with no change (attributes as name="value", elements closed). */
const unchanged = (html) => cheerio.load(html).html();
const headOf = (html) => html.slice(0, html.indexOf("</head>"));

// ----------------------------------------------------------------------------------------------
// deferred-head-scripts

const HEAD = `<html><head>
<script src="popper.min.js"></script>
<script src="quarto.js" type="module"></script>
<script src="bootstrap.min.js"></script>
<script type="text/javascript">const inline = 1;</script>
<script src="late.js" type="module"></script>
<link href="x.css" rel="stylesheet">
</head><body><script src="body.js"></script></body></html>`;

test("deferred-head-scripts: the head's scripts deferred, in the order they ran", async () => {
  const {html, report} = await run({"index.html": HEAD}, [deferredHeadScripts]);
  const out = html["index.html"];
  // before: popper.min.js and bootstrap.min.js ran at once, the two modules after the page was parsed; after: all after
  // parsing, in that same order (a browser runs deferred and module scripts in document order)
  assert.deepEqual(headOf(out).match(/<script\b[^>]*\bsrc="[^"]*"[^>]*>/g), ['<script src="popper.min.js" defer="">', '<script src="bootstrap.min.js" defer="">',
    '<script src="quarto.js" type="module">', '<script src="late.js" type="module">']);
  assert.deepEqual(report["deferred-head-scripts"], {"index.html": 2});
  assert.ok(out.includes('<script type="text/javascript">const inline = 1;</script>'), "inline scripts stay");
  assert.ok(out.endsWith('<body><script src="body.js"></script></body></html>'), "the body is left alone");
});

test("deferred-head-scripts: a deck is left alone; a page without head scripts stops the render", async () => {
  const {html, report} = await run({"slides.html": deckOf(HEAD)}, [deferredHeadScripts]);
  assert.equal(html["slides.html"], unchanged(deckOf(HEAD)));
  assert.deepEqual(report["deferred-head-scripts"], {});
  await stops(deferredHeadScripts, {"m/index.html": "<html><head><title>t</title></head><body></body></html>"}, "m/index.html");
  // a library it does not know, or an inline script using a library as the head is read, stops it too
  await stops(deferredHeadScripts, {"m/index.html": HEAD.replace("popper.min.js", "new-library.js")}, "m/index.html");
  await stops(deferredHeadScripts, {"m/index.html": HEAD.replace("const inline = 1;", "window.bootstrap.Tooltip.Default.delay = 1;")}, "m/index.html");
});

// ----------------------------------------------------------------------------------------------
// dom-ready-in-turns

const DOM_PAGE = '<html><head><meta charset="utf-8"><script defer src="a.js"></script><script src="b.js" type="module"></script>'
  + '</head><body><script>document.addEventListener("DOMContentLoaded", f)</script></body></html>';

test("dom-ready-in-turns: DOMContentLoaded listeners run in turns, from before the first script of the head", async () => {
  const {html} = await run({"index.html": DOM_PAGE}, [domReadyInTurns]);
  const head = headOf(html["index.html"]);
  assert.ok(head.includes('<script id="dom-ready-in-turns">'));
  assert.ok(head.indexOf('id="dom-ready-in-turns"') < head.indexOf('src="a.js"'), "the shim must come before every listener");
  assert.equal(html["index.html"].split('id="dom-ready-in-turns"').length, 2);
  assert.match(head, /document\.addEventListener = function/, "the script itself");
  assert.doesNotMatch(head, /^\/\/ At DOMContentLoaded/m, "its opening comment stays in the extension");
});

test("dom-ready-in-turns: a deck is left alone; a page without a script in its head stops the render", async () => {
  const {html} = await run({"slides.html": deckOf(DOM_PAGE)}, [domReadyInTurns]);
  assert.equal(html["slides.html"], unchanged(deckOf(DOM_PAGE)));
  await stops(domReadyInTurns, {"index.html": '<html><head><meta charset="utf-8"></head><body><script>x()</script></body></html>'}, "index.html");
});

// ----------------------------------------------------------------------------------------------
// search-on-first-use

const SEARCH_PAGE = `<html><head>
<script defer src="../site_libs/quarto-nav/quarto-nav.js"></script>
<script defer src="../site_libs/quarto-search/autocomplete.umd.js"></script>
<script defer src="../site_libs/quarto-search/fuse.min.js"></script>
<script defer src="../site_libs/quarto-search/quarto-search.js"></script>
<script id="quarto-search-options" type="application/json">{"location": "navbar", "type": "overlay", "keyboard-shortcut": ["f", "/"]}</script>
</head><body><nav><div id="quarto-search" class="" title="Search"></div></nav></body></html>`;
// as autocomplete-js 1.x builds its search icon (minified), other paths before and after it
const AUTOCOMPLETE = 'r.setAttribute("d","M9 9z");n.setAttribute("class","aa-SubmitIcon"),n.setAttribute("viewBox","0 0 24 24");'
  + 'var r=t.document.createElementNS("http://www.w3.org/2000/svg","path");return r.setAttribute("d","M16 15.8z"),'
  + 'n.appendChild(r),n}; r.setAttribute("d","M5 5z")';
const SEARCH_SITE = {"m/index.html": SEARCH_PAGE, "site_libs/quarto-search/autocomplete.umd.js": AUTOCOMPLETE};

test("search-on-first-use: the navbar search loads its scripts when first reached for, its button drawn until then", async () => {
  const {html} = await run(SEARCH_SITE, [searchOnFirstUse]);
  const out = html["m/index.html"];
  assert.doesNotMatch(out, /<script\b[^>]*src="[^"]*quarto-search\//, "a search script is still loaded with the page");
  const $ = cheerio.load(out);
  assert.deepEqual($("head script[src]").toArray().map((el) => $(el).attr("src")), ["../site_libs/quarto-nav/quarto-nav.js"], "only quarto-nav.js is left in the head");
  const loader = $("head > script#search-on-first-use");
  assert.equal(loader.length, 1);
  assert.ok(out.indexOf("quarto-nav.js") < out.indexOf('id="search-on-first-use"'), "where the search's scripts were");
  assert.deepEqual(JSON.parse(loader.attr("data-sources")), ["../site_libs/quarto-search/autocomplete.umd.js",
    "../site_libs/quarto-search/fuse.min.js", "../site_libs/quarto-search/quarto-search.js"], "the scripts, in their order, for the loader");
  assert.deepEqual(JSON.parse(loader.attr("data-keys")), ["f", "/"], "the page's own shortcut keys");
  assert.match(loader.text(), /window\.quartoOpenSearch/);
  assert.ok(out.includes('<div id="quarto-search" class="type-overlay" title="Search"><div class="aa-Autocomplete search-standin">'));
  assert.ok(out.includes('class="aa-DetachedSearchButton" title="Search" aria-label="Search"'));
  assert.ok(out.includes('<svg class="aa-SubmitIcon" viewBox="0 0 24 24" width="20" height="20" fill="currentColor"><path d="M16 15.8z">'));
});

test("search-on-first-use: the stand-in button has the icon of the site's own autocomplete", {skip: SHARE ? false : "no Quarto resources"}, () => {
  const dir = tempSite({"site_libs/quarto-search/autocomplete.umd.js": AUTOCOMPLETE});
  try {
    assert.equal(searchIconPath(dir), "M16 15.8z");
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
  // and in Quarto's own copy (the rendered-site suite checks the button on the site)
  const quartos = join(SHARE, "projects", "website", "search", "autocomplete.umd.js");
  if (!existsSync(quartos)) return;
  const real = tempSite({"site_libs/quarto-search/autocomplete.umd.js": readFileSync(quartos)});
  try {
    assert.ok(searchIconPath(real).startsWith("M16.041 15.856c"), searchIconPath(real).slice(0, 40));
  } finally {
    rmSync(real, {recursive: true, force: true});
  }
});

test("search-on-first-use: a deck keeps its search; a search of another kind, or no icon to draw, stops the render", async () => {
  const deck = await run({...SEARCH_SITE, "m/index.html": deckOf(SEARCH_PAGE)}, [searchOnFirstUse]);
  assert.equal(deck.html["m/index.html"], unchanged(deckOf(SEARCH_PAGE)));
  await stops(searchOnFirstUse, {...SEARCH_SITE, "m/index.html": SEARCH_PAGE.replace('"type": "overlay"', '"type": "textbox"')}, "m/index.html");
  await stops(searchOnFirstUse, {...SEARCH_SITE, "m/index.html": SEARCH_PAGE.replace('"location": "navbar"', '"location": "sidebar"')}, "m/index.html");
  await stops(searchOnFirstUse, {...SEARCH_SITE, "m/index.html": SEARCH_PAGE.replace(/<script defer src="[^"]*fuse\.min\.js"><\/script>/, "")}, "m/index.html");
  await stops(searchOnFirstUse, {...SEARCH_SITE, "m/index.html": SEARCH_PAGE.replace('<div id="quarto-search" class="" title="Search"></div>', "")}, "m/index.html");
  await stops(searchOnFirstUse, {"m/index.html": SEARCH_PAGE}, "site_libs/quarto-search/autocomplete.umd.js");
  await stops(searchOnFirstUse, {"m/index.html": SEARCH_PAGE, "site_libs/quarto-search/autocomplete.umd.js": "no icon here"},
    "site_libs/quarto-search/autocomplete.umd.js");
});

// ----------------------------------------------------------------------------------------------
// tippy-on-first-hover

const TIPPY_PAGE = `<html><head>
<script defer src="../../site_libs/quarto-html/tippy.umd.min.js"></script>
<link href="../../site_libs/quarto-html/tippy.css" rel="stylesheet">
</head><body><div class="reveal-not"></div>
<script>function tippyHover(el, contentFn) { const config = {}; window.tippy(el, config); }</script></body></html>`;

test("tippy-on-first-hover: hover previews built on first use, set up right after tippy loads", async () => {
  const {html} = await run({"m/n/index.html": TIPPY_PAGE}, [tippyOnFirstHover]);
  const out = html["m/n/index.html"];
  // the lazy wrapper is a module script, so it runs after the deferred tippy.js and before the
  // page's DOMContentLoaded handlers that call window.tippy
  const tippyAt = out.indexOf("tippy.umd.min.js"), wrapperAt = out.indexOf('<script id="tippy-on-first-hover" type="module">');
  assert.ok(tippyAt > 0 && tippyAt < wrapperAt && wrapperAt < out.indexOf("</head>"), out);
  assert.match(out, /window\.tippy = /);
});

test("tippy-on-first-hover: a deck keeps its previews; a page without tippy stops the render", async () => {
  const deck = TIPPY_PAGE.replace('<div class="reveal-not">', '<div class="reveal">');
  assert.equal((await run({"slides.html": deck}, [tippyOnFirstHover])).html["slides.html"], unchanged(deck));
  await stops(tippyOnFirstHover, {"index.html": "<html><head><script src=\"x.js\"></script></head><body></body></html>"}, "index.html");
  // tippy's global named otherwise, or Quarto's previews made another way
  await stops(tippyOnFirstHover, {"index.html": TIPPY_PAGE, "site_libs/quarto-html/tippy.umd.min.js": "(e=e||self).Tippy=t(e.Popper)"}, "site_libs/quarto-html/tippy.umd.min.js");
  await stops(tippyOnFirstHover, {"index.html": TIPPY_PAGE.replace("window.tippy(el, config)", "window.tippy.delegate(el, config)")}, "index.html");
});

// ----------------------------------------------------------------------------------------------
// icon-fonts-early

const ANCHOR_JS = 'this.add=function(A){null===document.head.querySelector("style.anchorjs")&&('
  + 'A.sheet.insertRule(".anchorjs-link{opacity:0}",A.sheet.cssRules.length),'
  + "A.sheet.insertRule('@font-face{font-family:anchorjs-icons;src:url(data:n/a;base64,AAE)}',A.sheet.cssRules.length))}";
const ICON_PAGE = `<html><head>
<title>t</title>
<script defer src="../site_libs/quarto-html/anchor.min.js"></script>
<link href="../site_libs/bootstrap/bootstrap-icons.css" rel="stylesheet">
<link href="../site_libs/bootstrap/bootstrap.min.css" rel="stylesheet">
</head><body><h2 class="anchored">A</h2></body></html>`;
const ICON_SITE = {"m/index.html": ICON_PAGE, "site_libs/quarto-html/anchor.min.js": ANCHOR_JS};

test("icon-fonts-early: the icon fonts asked for in the head, AnchorJS's style before the site's", async () => {
  const dir = tempSite({"site_libs/quarto-html/anchor.min.js": ANCHOR_JS});
  try {
    assert.deepEqual(anchorRules(dir), [".anchorjs-link{opacity:0}", "@font-face{font-family:anchorjs-icons;src:url(data:n/a;base64,AAE)}"]);
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
  const {html} = await run(ICON_SITE, [iconFontsEarly]);
  const head = headOf(html["m/index.html"]);
  // AnchorJS's own rules first, so the site's stylesheets still override them, as AnchorJS places them
  assert.ok(head.includes('<style class="anchorjs">'));
  assert.ok(head.indexOf('<style class="anchorjs">') < head.indexOf("bootstrap-icons.css"));
  assert.ok(head.includes("@font-face{font-family:anchorjs-icons"));
  // both fonts asked for after every stylesheet (which defines them), before the body
  const $ = cheerio.load(html["m/index.html"]);
  assert.deepEqual(JSON.parse($("head > script#icon-fonts-early").attr("data-fonts")), ["bootstrap-icons", "anchorjs-icons"]);
  assert.ok(head.indexOf('id="icon-fonts-early"') > head.indexOf("bootstrap.min.css"));
  assert.match($("#icon-fonts-early").text(), /document\.fonts\.load/);
});

test("icon-fonts-early: a deck is left alone; a page or site without the icon fonts' markup stops the render", async () => {
  const deck = deckOf(ICON_PAGE);
  assert.equal((await run({...ICON_SITE, "m/index.html": deck}, [iconFontsEarly])).html["m/index.html"], unchanged(deck));
  await stops(iconFontsEarly, {...ICON_SITE, "m/index.html": ICON_PAGE.replace(/<script [^>]*anchor\.min\.js"><\/script>/, "")}, "m/index.html");
  await stops(iconFontsEarly, {...ICON_SITE, "m/index.html": ICON_PAGE.replace(/<link [^>]*bootstrap-icons\.css"[^>]*>/, "")}, "m/index.html");
  await stops(iconFontsEarly, {"m/index.html": ICON_PAGE, "site_libs/quarto-html/anchor.min.js": "no rules"}, "site_libs/quarto-html/anchor.min.js");
});

// ----------------------------------------------------------------------------------------------
// heading-anchors

const ANCHOR_PAGE = `<html><head></head><body><!-- inventory {"headings": 2, "figures": 1} --><main>
<section id="intro" class="level2">
<h2 class="anchored" data-anchor-id="intro">Intro <code>x</code></h2>
<h3 id="own" class="something anchored">Own id</h3>
<h2 class="unanchored">Not this</h2>
<div id="fig-a" class="quarto-float quarto-figure anchored">
<figure><div class="inner"><img src="a.svg"></div>
</figure>
</div>
<p>after</p>
</section>
</main>
<script id="quarto-html-after-body" type="application/javascript">
  window.document.addEventListener("DOMContentLoaded", function (event) {
    const icon = "\ue9cb";
    const anchorJS = new window.AnchorJS();
    anchorJS.options = {
      placement: 'right',
      icon: icon
    };
    anchorJS.add('.anchored');
  });
</script></body></html>`;

test("heading-anchors: AnchorJS's links written in, the last child of each anchored element", async () => {
  const {html, report} = await run({"index.html": ANCHOR_PAGE}, [headingAnchors]);
  const out = html["index.html"];
  const link = (id) => anchorjsLink(id, "\ue9cb");
  assert.ok(out.includes(`<h2 class="anchored" data-anchor-id="intro">Intro <code>x</code>${link("intro")}</h2>`));
  assert.ok(out.includes(`<h3 id="own" class="something anchored">Own id${link("own")}</h3>`));
  assert.ok(out.includes(`</figure>\n${link("fig-a")}</div>\n<p>after</p>`), "after the nested divs, at the float's own end");
  assert.ok(out.includes('<h2 class="unanchored">Not this</h2>'));
  assert.equal(out.split('class="anchorjs-link ').length - 1, 3);
  assert.deepEqual(report["heading-anchors"], {"index.html": 3});
  assert.ok(link("x").includes('style="font: 1em / 1 anchorjs-icons; margin-left: 0.1875em;'));
  assert.ok(!anchorjsLink("x", "#").includes("anchorjs-icons"), "another icon: no AnchorJS font");
});

test("heading-anchors: other AnchorJS options, or no AnchorJS call at all, stop the render", async () => {
  await stops(headingAnchors, {"m/index.html": ANCHOR_PAGE.replace("placement: 'right'", "placement: 'left'")}, "m/index.html");
  await stops(headingAnchors, {"m/index.html": ANCHOR_PAGE.slice(0, ANCHOR_PAGE.indexOf("<script")) + "</body></html>"}, "m/index.html");
  const deck = deckOf(ANCHOR_PAGE);
  assert.equal((await run({"slides.html": deck}, [headingAnchors])).html["slides.html"], unchanged(deck));
});

// ----------------------------------------------------------------------------------------------
// hidden-cell-code

const HIDDEN = '<div class="code-copy-outer-scaffold"><div class="sourceCode cell-code hidden" id="cb1" data-startfrom="3">'
  + '<pre class="sourceCode js code-with-copy"><code><span>x = 1</span></code></pre></div>'
  + '<button title="Copy to Clipboard" class="code-copy-button"><i class="bi"></i></button></div>\n';
const SHOWN = HIDDEN.replace("cell-code hidden", "cell-code").replace("x = 1", "y = 2");

test("hidden-cell-code: the hidden source of an echo: false cell is left out; shown code and the output stay", async () => {
  const page = `<html><head></head><body><!-- inventory {"ojs_cells": 1, "ojs_hidden": 1} --><div class="cell">\n${HIDDEN}<div class="cell-output-display"><div id="ojs-cell-1"></div></div>\n${SHOWN}</div></body></html>`;
  const {html, report} = await run({"index.html": page}, [hiddenCellCode]);
  const out = html["index.html"];
  assert.ok(!out.includes("x = 1") && !out.includes("cell-code hidden"));
  assert.ok(out.includes(SHOWN), "code a reader is shown (echo: true) stays, with its copy button");
  assert.ok(out.includes('<div id="ojs-cell-1"></div>'), "the cell's output stays");
  assert.deepEqual(report["hidden-cell-code"], {"index.html": 1});
  // a page with OJS cells but no hidden source: Quarto writes it otherwise
  await stops(hiddenCellCode, {"m/index.html": page.replace(HIDDEN, "")}, "m/index.html");
});

// ----------------------------------------------------------------------------------------------
// ojs-on-demand

const b64 = (contents) => Buffer.from(JSON.stringify({contents})).toString("base64");
const CELLS = b64([{methodName: "interpret", cellName: "ojs-cell-1", inline: false,
  source: 'demo = import(new URL("./demo.js", document.baseURI).href)\nother = import(new URL("./demo.js", document.baseURI).href)'}]);
const OJS_PAGE = (contents = CELLS) => `<html><head>
<script src="../../site_libs/quarto-nav/quarto-nav.js"></script>
<script type="module" src="../../site_libs/quarto-ojs/${RUNTIME}"></script>
<link href="../../site_libs/quarto-ojs/quarto-ojs.css" rel="stylesheet">
</head><body><!-- inventory {"ojs_cells": 1} --><main><div class="cell"><div class="cell-output-display"><div id="ojs-cell-1"></div></div></div></main>
<script type="ojs-module-contents">
${contents}
</script>
<script type="module">
if (window.location.protocol === "file:") { alert("The OJS runtime does not work with file:// URLs. Please use a web server to view this document."); }
window._ojs.paths.runtimeToDoc = "../../modules/m";
window._ojs.paths.runtimeToRoot = "../..";
window._ojs.paths.docToRoot = "../..";
window._ojs.selfContained = false;
window._ojs.runtime.interpretFromScriptTags();
</script>
</body></html>`;

test("ojs-on-demand: the runtime imported when a demo may be seen, the cells' source kept beside the page until then", async () => {
  const dir = tempSite({"modules/m/index.html": OJS_PAGE()});
  try {
    const report = await finishSite(siteOf(dir), [ojsOnDemand]);
    assert.deepEqual(report["ojs-on-demand"], {"modules/m/index.html": 1}, "the page's one cell, as its inventory says");
    const out = readFileSync(join(dir, "modules", "m", "index.html"), "utf8");
    const [name] = readdirSync(join(dir, "modules", "m")).filter((n) => n.endsWith(".txt"));
    assert.match(name, /^index\.ojs-source-[0-9a-f]{10}\.txt$/);
    assert.equal(readFileSync(join(dir, "modules", "m", name), "utf8"), CELLS, "the source, beside the page");
    assert.ok(out.includes(`<script type="ojs-module-contents" data-src="${name}"></script>`));
    assert.ok(!out.includes(CELLS));
    assert.ok(!out.includes(`${RUNTIME}"`), "the runtime's script is not loaded with the page");
    assert.ok(!out.includes("window._ojs.runtime.interpretFromScriptTags();\n</script>"), "Quarto's start-up script is gone");
    const $ = cheerio.load(out);
    const loader = $("script#ojs-on-demand");
    assert.equal(loader.attr("type"), "module");
    assert.equal(loader.attr("data-runtime"), `../../site_libs/quarto-ojs/${RUNTIME_MIN}`, "Quarto's minified runtime");
    assert.deepEqual(JSON.parse(loader.attr("data-preload")), ["./demo.js"], "each demo's module once");
    assert.deepEqual(JSON.parse(loader.attr("data-paths")), {runtimeToDoc: "../../modules/m", runtimeToRoot: "../..", docToRoot: "../.."});
    assert.equal(loader.attr("data-self-contained"), "false");
    // the loader fetches every moved source before the runtime reads the tags
    const code = loader.text();
    assert.ok(code.indexOf("dataset.src") > 0 && code.indexOf("dataset.src") < code.indexOf("interpretFromScriptTags"));
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
  // the name changes with the text, so a cached copy never meets a newer page
  const names = [];
  for (const contents of [CELLS, b64([{cellName: "ojs-cell-1", source: "x = 1"}])]) {
    const {site} = await run({"modules/m/index.html": OJS_PAGE(contents)}, [ojsOnDemand]);
    names.push(...site.pages[0].besides.keys());
  }
  assert.equal(names.length, 2);
  assert.notEqual(names[0], names[1]);
});

test("ojs-on-demand: a page with OJS cells but not Quarto's runtime, start-up script or source stops the render", async () => {
  const page = OJS_PAGE();
  await stops(ojsOnDemand, {"modules/m/index.html": page.replace(RUNTIME, "other-runtime.js")}, "modules/m/index.html");
  await stops(ojsOnDemand, {"modules/m/index.html": page.replace("interpretFromScriptTags", "interpret")}, "modules/m/index.html");
  await stops(ojsOnDemand, {"modules/m/index.html": page.replace('type="ojs-module-contents"', 'type="ojs-contents"')}, "modules/m/index.html");
  await stops(ojsOnDemand, {"modules/m/index.html": page.replace(/window\._ojs\.paths\.[^\n]*\n/g, "")}, "modules/m/index.html");
  await stops(ojsOnDemand, {"modules/m/index.html": page.replace("window._ojs.selfContained = false;", "")}, "modules/m/index.html");
});

// ----------------------------------------------------------------------------------------------
// minified-ojs-runtime

const needShare = (...parts) => (SHARE && existsSync(join(SHARE, ...parts)) ? false : "no Quarto resources (quarto is not on PATH)");

test("minified-ojs-runtime: Quarto's own minified runtime in place of the unminified copy", {skip: needShare("formats", "html", "ojs", RUNTIME_MIN)}, async () => {
  const folder = (dir) => join(dir, "site_libs", "quarto-ojs");
  const dir = tempSite({"modules/m/index.html": '<html><body><!-- inventory {"ojs_cells": 1} --><div id="ojs-cell-1"></div></body></html>',
    [`site_libs/quarto-ojs/${RUNTIME}`]: "// the unminified runtime", "site_libs/quarto-ojs/quarto-ojs.css": "x{}"});
  try {
    assert.deepEqual((await finishSite(siteOf(dir), [minifiedOjsRuntime]))["minified-ojs-runtime"], {"(site)": 1});
    assert.ok(readFileSync(join(folder(dir), RUNTIME_MIN)).equals(readFileSync(join(SHARE, "formats", "html", "ojs", RUNTIME_MIN))));
    assert.ok(!existsSync(join(folder(dir), RUNTIME)), "the unminified copy is left in site_libs/");
    // done by an earlier render (a page rendered alone): nothing to do
    assert.deepEqual((await finishSite(siteOf(dir), [minifiedOjsRuntime]))["minified-ojs-runtime"], {"(site)": 0});
    assert.ok(existsSync(join(folder(dir), RUNTIME_MIN)));
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
  // a site without demos keeps site_libs/ as it is
  const plain = await run({"index.html": "<p>x</p>", [`site_libs/quarto-ojs/${RUNTIME}`]: "x"}, [minifiedOjsRuntime]);
  assert.deepEqual(plain.report["minified-ojs-runtime"], {"(site)": 0});
  assert.equal(plain.site.writes.size + plain.site.removals.size, 0);
  // Quarto's resources without the minified runtime, or a site_libs/ without Quarto's runtime, stop the render
  const noShare = mkdtempSync(join(tmpdir(), "no-share-"));
  try {
    await stops(minifiedOjsRuntime, {"index.html": '<!-- inventory {"ojs_cells": 1} --><div id="ojs-cell-1"></div>', [`site_libs/quarto-ojs/${RUNTIME}`]: "x"},
      "Quarto's resources", {quartoShare: noShare});
  } finally {
    rmSync(noShare, {recursive: true, force: true});
  }
  await stops(minifiedOjsRuntime, {"index.html": '<!-- inventory {"ojs_cells": 1} --><div id="ojs-cell-1"></div>', "site_libs/quarto-ojs/quarto-ojs.css": "x{}"}, "site_libs/quarto-ojs");
});

// ----------------------------------------------------------------------------------------------
// icon-font

const python = process.env.PYTHON ?? "python3";
const iconsSkip = needShare("formats", "html", "bootstrap", "dist", "bootstrap-icons.woff")
  || (spawnSync(python, ["-c", "import fontTools.ttLib"]).status !== 0 ? "fonttools is not installed (requirements.txt)" : false);
const ICON_RULE = /\.bi-([a-z0-9-]+)::?before\s*\{\s*content:\s*"\\([0-9a-fA-F]+)"/g;

/** The codepoints of a font file, read with fonttools. */
const cmapOf = (file) => new Set(JSON.parse(execFileSync(python, ["-c",
  "import json, sys\nfrom fontTools.ttLib import TTFont\nprint(json.dumps(sorted(TTFont(sys.argv[1]).getBestCmap())))", file], {encoding: "utf8"})));

/** A cache that counts what it computes. */
class CountingCache extends Cache {
  computed = 0;
  get(name, key, compute) {
    return super.get(name, key, () => { this.computed++; return compute(); });
  }
}

test("icon-font: the icon font keeps the icons the site names, cut from Quarto's copy each time", {skip: iconsSkip}, async () => {
  const dist = join(SHARE, "formats", "html", "bootstrap", "dist");
  const dir = tempSite({"index.html": '<a><i class="bi bi-github"></i></a>',
    // a class in a script, and an icon a script names by itself (Quarto's search: "file-richtext" and `bi-${icon}`)
    "site_libs/x.js": 'el.className = "bi-clipboard"; card("file-richtext", "show"); const c = `bi bi-${icon}`;'});
  const libs = join(dir, "site_libs", "bootstrap"), cacheDir = join(dir, "..", `${dir.split("/").pop()}-cache`);
  try {
    mkdirSync(libs);
    for (const name of ["bootstrap-icons.woff", "bootstrap-icons.css"]) cpSync(join(dist, name), join(libs, name));
    const code = Object.fromEntries([...readFileSync(join(libs, "bootstrap-icons.css"), "utf8").matchAll(ICON_RULE)].map((m) => [m[1], parseInt(m[2], 16)]));
    const first = new CountingCache(cacheDir);
    assert.deepEqual((await finishSite(siteOf(dir, {cache: first}), [iconFont]))["icon-font"], {"(site)": 3});
    const font = join(libs, "bootstrap-icons.woff");
    let cmap = cmapOf(font);
    for (const name of ["github", "clipboard", "file-richtext"]) assert.ok(cmap.has(code[name]), `${name} is missing from the font`);
    assert.ok(!cmap.has(code.search), "an icon no page names was kept");
    assert.ok(statSync(font).size < statSync(join(dist, "bootstrap-icons.woff")).size / 20);
    const cut = readFileSync(font);

    // the next render: Quarto copies its whole font back; with no new icon named, the cut is not made again
    cpSync(join(dist, "bootstrap-icons.woff"), font);
    const again = new CountingCache(cacheDir);
    assert.deepEqual((await finishSite(siteOf(dir, {cache: again}), [iconFont]))["icon-font"], {"(site)": 3});
    assert.equal(again.computed, 0, "the font was cut again");
    assert.ok(readFileSync(font).equals(cut), "the cut font was not put back");

    // a page that names one more icon gets it at the next render (cut from Quarto's copy, not the cut one)
    writeFileSync(join(dir, "page.html"), '<i class="bi bi-search"></i>');
    const more = new CountingCache(cacheDir);
    assert.deepEqual((await finishSite(siteOf(dir, {cache: more}), [iconFont]))["icon-font"], {"(site)": 4});
    assert.equal(more.computed, 1);
    cmap = cmapOf(font);
    for (const name of ["github", "clipboard", "file-richtext", "search"]) assert.ok(cmap.has(code[name]), name);

    // a cache entry cut short is only a cache that is lost
    for (const entry of readdirSync(cacheDir)) writeFileSync(join(cacheDir, entry), '{"font": ');
    assert.deepEqual((await finishSite(siteOf(dir, {cache: new Cache(cacheDir)}), [iconFont]))["icon-font"], {"(site)": 4});
    assert.ok(cmapOf(font).has(code.search));
  } finally {
    rmSync(dir, {recursive: true, force: true});
    rmSync(cacheDir, {recursive: true, force: true});
  }
});

test("icon-font: no Quarto font to cut from, or an icon stylesheet of another shape, stops the render", async () => {
  const files = {"index.html": '<i class="bi bi-github"></i>', "site_libs/bootstrap/bootstrap-icons.css": '.bi-github::before { content: "\\f3ed"; }',
    "site_libs/bootstrap/bootstrap-icons.woff": "x"};
  await stops(iconFont, files, "Quarto's resources", {quartoShare: null});
  if (!needShare("formats", "html", "bootstrap", "dist", "bootstrap-icons.woff")) {
    await stops(iconFont, {...files, "site_libs/bootstrap/bootstrap-icons.css": ".bi-github::before { content: url(x.svg); }"},
      "site_libs/bootstrap/bootstrap-icons.css");
  }
  // a site of decks only: nothing to cut; an html page without Bootstrap Icons' stylesheet stops the render
  assert.deepEqual((await run({"index.html": deckOf("<html><body><p>x</p></body></html>")}, [iconFont], {quartoShare: null})).report["icon-font"], {"(site)": 0});
  await stops(iconFont, {"index.html": "<p>x</p>"}, "site_libs/bootstrap", {quartoShare: null});
});

// ----------------------------------------------------------------------------------------------
// no-cdn

test("no-cdn: a site that names no CDN passes; a page that still does stops the render, naming the page and the address", async () => {
  assert.deepEqual((await run({"index.html": '<script src="vendor/x.js"></script>', "m/index.html": "<p>cdn.jsdelivr.net is a name</p>"}, [noCdn])).report["no-cdn"], {"(site)": 2}, "the pages it checked");
  for (const url of ["https://cdn.jsdelivr.net/npm/d3@7", "https://cdnjs.cloudflare.com/polyfill/v3/polyfill.min.js?features=es6", "http://unpkg.com/htl"]) {
    const files = {"index.html": "<p>x</p>", "m/lab.html": `<html><head><script src="${url}"></script></head><body></body></html>`};
    await stops(noCdn, files, "m/lab.html");
    await assert.rejects(run(files, [noCdn]), (e) => e.message.includes(url.split("?")[0]));
  }
});

// ----------------------------------------------------------------------------------------------
// all of them, in the pipeline's order

test("the passes in the pipeline's order on one Quarto-shaped page; a second run leaves the finished page alone", async () => {
  const names = ["ojs-on-demand", "hidden-cell-code", "deferred-head-scripts", "dom-ready-in-turns",
    "search-on-first-use", "tippy-on-first-hover", "icon-fonts-early", "heading-anchors"];
  const passes = PASSES.filter((p) => names.includes(p.name));
  assert.deepEqual(passes.map((p) => p.name), names, "passes/index.mjs's order");
  const head = `<!DOCTYPE html>\n<html lang="en"><head>\n<meta charset="utf-8">
<script src="../../site_libs/quarto-nav/quarto-nav.js"></script>
<script src="../../site_libs/quarto-search/autocomplete.umd.js"></script>
<script src="../../site_libs/quarto-search/fuse.min.js"></script>
<script src="../../site_libs/quarto-search/quarto-search.js"></script>
<script src="../../site_libs/quarto-html/quarto.js" type="module"></script>
<script src="../../site_libs/quarto-html/tippy.umd.min.js"></script>
<script src="../../site_libs/quarto-html/anchor.min.js"></script>
<link href="../../site_libs/bootstrap/bootstrap-icons.css" rel="stylesheet">
<script id="quarto-search-options" type="application/json">{"location": "navbar", "type": "overlay", "keyboard-shortcut": ["f"]}</script>
<script type="module" src="../../site_libs/quarto-ojs/${RUNTIME}"></script>
</head>`;
  const page = OJS_PAGE().replace(/^<html><head>[\s\S]*?<\/head>/, head)
    .replace("<main>", `<nav><div id="quarto-search" class="" title="Search"></div></nav><main><section id="s" class="level2"><h2 class="anchored" data-anchor-id="s">S</h2><div class="cell">${HIDDEN}</div></section>`)
    .replace("</body>", `${ANCHOR_PAGE.slice(ANCHOR_PAGE.indexOf('<script id="quarto-html-after-body"'), ANCHOR_PAGE.indexOf("</body>"))}</body>`)
    .replace("</body>", "<script>function tippyHover(el) { const config = {}; window.tippy(el, config); }</script></body>")
    .replace('<!-- inventory {"ojs_cells": 1} -->', '<!-- inventory {"ojs_cells": 1, "ojs_hidden": 1, "headings": 1} -->');
  const dir = tempSite({"modules/m/index.html": page,
    "site_libs/quarto-search/autocomplete.umd.js": AUTOCOMPLETE, "site_libs/quarto-html/anchor.min.js": ANCHOR_JS});
  try {
    const report = await finishSite(siteOf(dir), passes);
    for (const name of names) assert.ok(report[name]["modules/m/index.html"] > 0, `${name} changed nothing`);
    const file = join(dir, "modules", "m", "index.html");
    const out = readFileSync(file, "utf8"), outHead = headOf(out);
    // the scripts put in by later passes are not deferred; dom-ready-in-turns still comes before every listener
    assert.match(outHead, /<script id="dom-ready-in-turns">/);
    assert.ok(outHead.indexOf('id="dom-ready-in-turns"') < outHead.indexOf("quarto-nav.js"));
    assert.deepEqual(outHead.match(/<script\b[^>]*\bsrc="[^"]*"[^>]*>/g), ['<script src="../../site_libs/quarto-nav/quarto-nav.js" defer="">',
      '<script src="../../site_libs/quarto-html/tippy.umd.min.js" defer="">', '<script src="../../site_libs/quarto-html/anchor.min.js" defer="">',
      '<script src="../../site_libs/quarto-html/quarto.js" type="module">']);
    assert.ok(readdirSync(dirname(file)).some((n) => /^index\.ojs-source-[0-9a-f]{10}\.txt$/.test(n)));
    // the course's page scripts, each written into the page as it is (no character escaped: `<`, `&&`, quotes)
    for (const name of ["ojs-on-demand", "dom-ready-in-turns", "search-on-first-use", "tippy-on-first-hover", "icon-fonts-early"]) {
      assert.ok(out.includes(`id="${name}"`) && out.includes(pageScript(name)), name);
    }
    assert.match(pageScript("search-on-first-use"), /i < sources\.length/);
    const second = await finishSite(siteOf(dir), passes);
    for (const name of names) assert.deepEqual(second[name], {}, `${name} ran again on a finished page`);
    assert.equal(readFileSync(file, "utf8"), out);
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
});
