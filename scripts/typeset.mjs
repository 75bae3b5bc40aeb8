#!/usr/bin/env node
// Finish the rendered pages for phones and for speed (the last step of `quarto render`):
//
//   node scripts/typeset.mjs            # what `quarto render` runs last (project: post-render)
//   node scripts/typeset.mjs DIR        # the pages of another rendered site
//
// 1. Math is typeset here, once, so a reader's browser does no TeX work and loads no MathJax.
//    Quarto (html-math-method: mathjax) writes each formula as <span class="math inline">\(…\)</span>
//    or <span class="math display">\[…\]</span>, numbered ones ending in \tag{N}.  Each becomes
//    MathML that the browser draws itself, with TeX's layout written out (scripts/native_mathml.mjs,
//    from mathjax-full 3.2.2's tree), in the math font scripts/math_font.py cuts (asked for in the
//    head), and the <script> that loads MathJax is removed.  A TeX error, or a formula MathML Core
//    cannot draw, stops the render, naming the page and the formula.
// 2. Nothing is wider than a phone: a numbered equation becomes [body | (N)], the body scrolling
//    sideways in its own box while the number stays in view (MathJax's own tag would sit at the far
//    end of the scrolled box); a long inline formula and every table scroll in their own box.  Each
//    such box, and a figure's image box (site.css lets Figures 1-2 scroll on a phone), is
//    keyboard-focusable (tabindex="0"), so it can be scrolled without a mouse.
// 3. A collapsible callout's header is a button (role, tabindex, Enter/Space), named by its title.
// 4. Less to load: the dark theme's stylesheets load only when dark mode is on.  (The OJS runtime and
//    the demos' modules load on demand, not at load: scripts/vendor_js.py --post-render.)
// The CSS for these boxes is in site.css.  A reveal.js deck gets step 1 too, its numbered equations
// laid out the same way (the CSS in _extensions/course/slides.scss; the math font's @font-face in its
// head, as the deck loads no site.css), and loses reveal.js's math plugin; the page-only steps 2-4
// leave it alone.  (Until 2026-12 a deck's formulas were MathJax's SVG, each glyph's path drawn once
// per deck: three times the markup, which the deck parsed before its first slide.)
// A page's typeset formulas are kept in .quarto/typeset-cache/ (Quarto's scratch folder), so a render
// that changes no formula of a page skips MathJax for it; a finished page is marked and never redone.
import {existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, statSync} from "node:fs";
import {createHash} from "node:crypto";
import {join, relative, resolve, dirname, sep} from "node:path";
import {createRequire} from "node:module";
import {fileURLToPath} from "node:url";
import {sitePages} from "./site_files.mjs";
import {nativeMathML} from "./native_mathml.mjs";

const require = createRequire(import.meta.url);
let MJ = null;   // mathjax-full, loaded on first use (about a second): a render whose formulas are all cached skips it

function mathjaxFull() {
  if (MJ) return MJ;
  const {liteAdaptor} = require("mathjax-full/js/adaptors/liteAdaptor.js");
  const {RegisterHTMLHandler} = require("mathjax-full/js/handlers/html.js");
  const {AllPackages} = require("mathjax-full/js/input/tex/AllPackages.js");
  const adaptor = liteAdaptor();
  RegisterHTMLHandler(adaptor);
  MJ = {
    mathjax: require("mathjax-full/js/mathjax.js").mathjax,
    TeX: require("mathjax-full/js/input/tex.js").TeX,
    SVG: require("mathjax-full/js/output/svg.js").SVG,
    // no \require: every package is loaded already, and nothing may be fetched
    packages: AllPackages.filter((p) => p !== "require" && p !== "autoload"),
  };
  return MJ;
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// the math font's subset, which scripts/math_font.py writes after this step (site.css names it)
export const MATH_FONT = "site_libs/course-math/course-math.woff";
// an inline formula wider than this (in em of the text) may not fit a phone's line: it scrolls
const WIDE_INLINE_EM = 14;
const MATH_SPAN = /<span class="math (inline|display)">(\\\(|\\\[)([\s\S]*?)(\\\)|\\\])<\/span>/g;
const MATHJAX_SCRIPT = /[ \t]*<script\b[^>]*\bsrc="[^"]*mathjax[^"]*"[^>]*>\s*<\/script>[ \t]*\n?/gi;
const TAG = /\\tag\{([^{}]*)\}\s*$/;
// the pages' cached formulas are written again when the MathML writer changes
const MATHML_WRITER = createHash("sha256").update(readFileSync(join(ROOT, "scripts", "native_mathml.mjs"))).digest("hex");

// a finished page says so, and is left alone: `quarto preview` and partial renders leave earlier
// pages in the output folder, and this runs over every page there
const FINISHED = '<meta name="typeset" content="scripts/typeset.mjs">';

const unescape = (s) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"')
  .replace(/&#39;/g, "'").replace(/&amp;/g, "&");

export class TexError extends Error {}

/** A MathJax document for one page or deck: each formula as MathML the browser draws itself
    (scripts/native_mathml.mjs); the SVG output jax only measures (widthEm), it draws nothing. */
export function pageTypesetter() {
  const {mathjax, TeX, SVG, packages} = mathjaxFull();
  const doc = mathjax.document("", {
    InputJax: new TeX({packages, formatError: (jax, err) => { throw new TexError(err.message); }}),
    OutputJax: new SVG({fontCache: "none"}),
  });
  return {
    /** A formula as MathML the browser draws itself. */
    mathml(tex, display) {
      const item = new doc.options.MathItem(tex, doc.inputJax[0], display);
      item.compile(doc);
      return nativeMathML(item.root);
    },
    doc,
  };
}

/** The width of typeset markup in em, from MathJax's own metrics of the internal MathML tree. */
function widthEm(doc, tex, display) {
  const item = new doc.options.MathItem(tex, doc.inputJax[0], display);
  item.setMetrics(16, 8, 1280, 100000, 1);
  item.compile(doc);
  return doc.outputJax.getBBox(item, doc).w;
}

const TABLE = /<table\b[\s\S]*?<\/table>/g;

/** Every table in its own scroll box (tables are never nested in these pages). */
export function wrapTables(html) {
  return html.replace(TABLE, (table) => `<div class="table-scroll" tabindex="0">${table}</div>`);
}

// Quarto's collapsible callout header: a <div> with aria-expanded but no role, named "Toggle callout"
const CALLOUT_TOGGLE = /<div class="(callout-header[^"]*)" data-bs-toggle="collapse"([^>]*?) aria-label="Toggle callout">/g;
// Enter and Space open a callout as a click does (a role="button" <div> gets no click from the keyboard)
const KEYBOARD_TOGGLE = `<script>document.addEventListener("keydown", (e) => {
  const toggle = e.target.closest && e.target.closest('[role="button"][data-bs-toggle="collapse"]');
  if (toggle && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); toggle.click(); }
});</script>\n`;

/** Collapsible callouts as buttons: keyboard-focusable, named by their title, opened by Enter or Space. */
export function calloutButtons(html) {
  const out = html.replace(CALLOUT_TOGGLE, (whole, cls, attrs) =>
    `<div class="${cls}" data-bs-toggle="collapse"${attrs} role="button" tabindex="0">`);
  return out === html ? html : out.replace("</body>", `${KEYBOARD_TOGGLE}</body>`);
}

// a figure's image box, which site.css lets scroll sideways on a phone (Figures 1 and 2)
const FIGURE_BOX = /<div aria-describedby="([^"]+)">(\s*<img\b)/g;

/** Figure image boxes keyboard-focusable, so a figure that scrolls on a phone can be scrolled by keyboard. */
export function focusableFigures(html) {
  return html.replace(FIGURE_BOX, (whole, id, img) => `<div aria-describedby="${id}" tabindex="0">${img}`);
}

// Quarto loads the dark theme's stylesheets with rel="stylesheet" and its script disables them at
// once: a reader in light mode downloads half a megabyte for nothing.  Quarto's colour-scheme
// toggle sets rel="stylesheet" when dark mode is chosen (or preferred), and only then do they load.
const DARK_SHEET = /<link\b[^>]*\bclass="quarto-color-scheme quarto-color-alternate"[^>]*>/g;

export function darkThemeOnDemand(html) {
  return html.replace(DARK_SHEET, (link) => link.replace('rel="stylesheet"', 'rel="disabled-stylesheet"'));
}

// A reveal.js deck: Quarto's template loads reveal.js's math plugin, which would load MathJax (the
// 1.3 MB tex-chtml-full.js) and typeset in the browser before the first slide is ready.  Its formulas typeset here instead, the plugin goes.
const DECK = /<div class="reveal"/;
const MATH_PLUGIN_SCRIPT = /[ \t]*<script src="[^"]*\/plugin\/math\/math\.js"><\/script>[ \t]*\n?/;
const MATH_PLUGIN = /\n?[ \t]*RevealMath,/;

export function deckWithoutMathPlugin(html) {
  return html.replace(MATH_PLUGIN_SCRIPT, "").replace(MATH_PLUGIN, "");
}

/** The markup replacing one formula span. */
function formulaMarkup(t, kind, rawTex, where) {
  const display = kind === "display";
  let tex = unescape(rawTex);
  const tag = display ? TAG.exec(tex) : null;
  if (tag) tex = tex.slice(0, tag.index);
  let out;
  try {
    out = t.mathml(tex, display);
  } catch (err) {
    throw new TexError(`${where}: TeX error in ${display ? "\\[" : "\\("}${tex.trim()}${display ? "\\]" : "\\)"}: ${err.message}`);
  }
  if (display) {
    const number = tag ? `<span class="equation-number">(${tag[1]})</span>` : "";
    return `<span class="math display${tag ? " numbered" : ""}"><span class="equation-body" tabindex="0">${out}</span>${number}</span>`;
  }
  const wide = widthEm(t.doc, tex, false) > WIDE_INLINE_EM;
  return wide ? `<span class="math inline wide" tabindex="0">${out}</span>` : `<span class="math inline">${out}</span>`;
}

/** {markups} for a page's formulas, from `cacheDir` when the same formulas were typeset before. */
function typesetFormulas(formulas, where, cacheDir) {
  const key = createHash("sha256").update(JSON.stringify([MATHML_WRITER, formulas])).digest("hex").slice(0, 24);
  const cached = cacheDir && join(cacheDir, `${key}.json`);
  if (cached && existsSync(cached)) return {...JSON.parse(readFileSync(cached, "utf8")), key};
  const t = pageTypesetter();
  const result = {markups: formulas.map(([kind, rawTex]) => formulaMarkup(t, kind, rawTex, where))};
  if (cached) {
    mkdirSync(cacheDir, {recursive: true});
    writeFileSync(cached, JSON.stringify(result));
  }
  return {...result, key};
}

// a deck loads no site.css: the math font's @font-face comes with it, relative to the deck
const deckFontFace = (fontURL) => `<style id="course-math-font">@font-face { font-family: "Course Math"; font-display: swap; src: url("${fontURL}") format("woff"); }</style>`;

/** One page's HTML, finished ({finished: true} for a page finished before).  `fontURL`: the math
    font (scripts/math_font.py writes it), asked for in the head of a page with formulas.  A reveal.js
    deck gets its formulas typeset and loses the math plugin, nothing else. */
export function typesetPage(html, fontURL, where = "page", cacheDir = null) {
  if (html.includes(FINISHED)) return {finished: true};
  const deck = DECK.test(html);
  html = deck ? deckWithoutMathPlugin(html) : darkThemeOnDemand(calloutButtons(focusableFigures(wrapTables(html))));
  html = html.replace("</head>", `${FINISHED}\n</head>`);
  const formulas = [...html.matchAll(MATH_SPAN)].map((m) => [m[1], m[3]]);
  if (formulas.length === 0) return {html: html.replace(MATHJAX_SCRIPT, ""), count: 0};
  const {markups, key} = typesetFormulas(formulas, where, cacheDir);
  let i = 0;
  html = html.replace(MATH_SPAN, () => markups[i++]).replace(MATHJAX_SCRIPT, "");
  // the font is asked for with the stylesheets, so that the formulas are drawn in it from the first paint
  const font = `<link rel="preload" href="${fontURL}" as="font" type="font/woff" crossorigin="">`;
  html = html.replace("</head>", `${deck ? `${deckFontFace(fontURL)}\n` : ""}${font}\n</head>`);
  return {html, count: formulas.length, key};
}

/** Finish every page of `site`; formulas are cached in `cacheDir` (after a render of every page, the
    entries no page used are removed). */
export function typesetSite(site, cacheDir = null, files = null) {
  let pages = 0, formulas = 0, earlier = files ? 1 : 0;  // pages changed, formulas typeset, pages finished before
  const used = new Set();
  for (const file of files ?? sitePages(site)) {
    const depth = relative(site, file).split(sep).length - 1;
    const fontURL = `${"../".repeat(depth)}${MATH_FONT}`;
    const result = typesetPage(readFileSync(file, "utf8"), fontURL, relative(site, file), cacheDir);
    if (!result) continue;
    if (result.finished) {
      earlier++;
      continue;
    }
    writeFileSync(file, result.html);
    if (result.key) used.add(`${result.key}.json`);
    pages++;
    formulas += result.count;
  }
  if (cacheDir && existsSync(cacheDir) && earlier === 0) {
    for (const name of readdirSync(cacheDir)) if (!used.has(name)) rmSync(join(cacheDir, name), {force: true});
  }
  return {pages, formulas};
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const site = resolve(process.argv[2] || process.env.QUARTO_PROJECT_OUTPUT_DIR || join(ROOT, "_site"));
  try {
    statSync(site);
    const t0 = Date.now();
    // Quarto runs this in the project folder: its scratch folder .quarto/ keeps the cache between renders
    const cache = existsSync(".quarto") ? join(".quarto", "typeset-cache") : null;
    // a render of some pages (`quarto render PAGE`, `quarto preview`) lists what it wrote: only those
    const listed = process.env.QUARTO_PROJECT_RENDER_ALL ? null : process.env.QUARTO_PROJECT_OUTPUT_FILES;
    const files = listed == null ? null : listed.split("\n").filter((f) => f.endsWith(".html"))
      .map((f) => resolve(process.env.QUARTO_PROJECT_DIR || ".", f)).filter((f) => existsSync(f));
    const {pages, formulas} = typesetSite(site, cache, files);
    console.log(`typeset: ${formulas} formulas on ${pages} pages in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } catch (err) {
    console.error(`typeset: ${err.message}`);
    process.exit(1);
  }
}
