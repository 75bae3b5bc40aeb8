// Math typeset here, once, so a reader's browser does no TeX work and loads no MathJax.  Quarto
// (html-math-method: mathjax) writes each formula as <span class="math inline">\(…\)</span> or
// <span class="math display">\[…\]</span>, numbered ones ending in \tag{N}.  Each becomes MathML that
// the browser draws itself, with TeX's layout written out (../native-mathml.mjs, from mathjax-full's
// tree), in the math font math-font.mjs cuts (asked for in the head).  A numbered equation becomes
// [body | (N)], the body scrolling sideways in its own box while the number stays in view; a long
// inline formula scrolls in its own box (site.css; a deck: _extensions/course/slides.scss, and the
// font's @font-face in its head, as a deck loads no site.css).  The script tags that load MathJax
// (and pandoc's polyfill for it; a deck's reveal.js math plugin) go.  A TeX error, or a formula
// MathML Core cannot draw, stops the render, naming the page and the formula.  A page's typeset
// formulas are cached, so a render that changes no formula of a page skips MathJax for it.
import {createRequire} from "node:module";
import {readFileSync} from "node:fs";
import {fileURLToPath} from "node:url";
import {Cache} from "../cache.mjs";
import {ContractError, expectSome} from "../contract.mjs";
import {nativeMathML} from "../native-mathml.mjs";

const require = createRequire(import.meta.url);
// the math font's subset, which math-font.mjs writes (site.css names it too)
export const MATH_FONT = "site_libs/course-math/course-math.woff";
// an inline formula wider than this (in em of the text) may not fit a phone's line: it scrolls
const WIDE_INLINE_EM = 14;
const TAG = /\\tag\{([^{}]*)\}\s*$/;
const DELIMITED = /^\s*(\\\(|\\\[)([\s\S]*?)(\\\)|\\\])\s*$/;
// the cached formulas are typeset again when the MathML writer changes
const MATHML_WRITER = Cache.key(readFileSync(fileURLToPath(new URL("../native-mathml.mjs", import.meta.url))));

export class TexError extends Error {}

let MJ = null;   // mathjax-full, loaded on first use (about a second): a render whose formulas are all cached skips it
function mathjaxFull() {
  if (MJ) return MJ;
  const {liteAdaptor} = require("mathjax-full/js/adaptors/liteAdaptor.js");
  const {RegisterHTMLHandler} = require("mathjax-full/js/handlers/html.js");
  const {AllPackages} = require("mathjax-full/js/input/tex/AllPackages.js");
  RegisterHTMLHandler(liteAdaptor());
  MJ = {
    mathjax: require("mathjax-full/js/mathjax.js").mathjax,
    TeX: require("mathjax-full/js/input/tex.js").TeX,
    SVG: require("mathjax-full/js/output/svg.js").SVG,
    // no \require: every package is loaded already, and nothing may be fetched
    packages: AllPackages.filter((p) => p !== "require" && p !== "autoload"),
  };
  return MJ;
}

/** A typesetter: each formula as MathML the browser draws itself; the SVG output jax only measures. */
export function typesetter() {
  const {mathjax, TeX, SVG, packages} = mathjaxFull();
  const doc = mathjax.document("", {
    InputJax: new TeX({packages, formatError: (jax, err) => { throw new TexError(err.message); }}),
    OutputJax: new SVG({fontCache: "none"}),
  });
  const item = (tex, display) => {
    const it = new doc.options.MathItem(tex, doc.inputJax[0], display);
    it.setMetrics(16, 8, 1280, 100000, 1);
    it.compile(doc);
    return it;
  };
  return {
    mathml: (tex, display) => nativeMathML(item(tex, display).root),
    /** the width of the typeset formula in em, from MathJax's own metrics */
    widthEm: (tex, display) => doc.outputJax.getBBox(item(tex, display), doc).w,
  };
}

/** The markup replacing one formula ([display, tex] as Quarto wrote it). */
export function formulaMarkup(t, display, rawTex, where) {
  let tex = rawTex;
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
  return t.widthEm(tex, false) > WIDE_INLINE_EM ? `<span class="math inline wide" tabindex="0">${out}</span>` : `<span class="math inline">${out}</span>`;
}

export default {
  name: "typeset-math",
  targets: (page) => page.$("span.math.inline, span.math.display").length > 0,
  async apply(page, site) {
    const {$} = page;
    const spans = page.$("span.math.inline, span.math.display").toArray();
    const formulas = spans.map((el) => {
      const m = DELIMITED.exec($(el).text());
      if (!m) throw new ContractError(this.name, page.rel, `TeX between \\( \\) or \\[ \\] in <span class="math"> (found ${$(el).text().slice(0, 40)})`);
      return [$(el).hasClass("display"), m[2]];
    });
    const markups = await site.cache.get(this.name, Cache.key(MATHML_WRITER, formulas), () => {
      const t = typesetter();
      return formulas.map(([display, tex]) => formulaMarkup(t, display, tex, page.rel));
    });
    spans.forEach((el, i) => $(el).replaceWith(markups[i]));
    // MathJax is not loaded in the browser: its script goes, with pandoc's polyfill for it, or a deck's math plugin
    expectSome(this.name, page, 'script[src*="mathjax"], script[src$="/plugin/math/math.js"]', "the <script> that loads MathJax (or reveal.js's math plugin)").remove();
    $('script[src*="polyfill"]').remove();
    const fontURL = page.toRoot + MATH_FONT;
    if (page.isDeck) {
      const init = $("script").filter((i, el) => /^\s*RevealMath,\s*$/m.test($(el).text()));
      if (init.length !== 1) throw new ContractError(this.name, page.rel, "RevealMath in reveal.js's plugin list");
      init.text(init.text().replace(/\n?[ \t]*RevealMath,/, ""));
      $("head").append(`<style id="course-math-font">@font-face { font-family: "Course Math"; font-display: swap; src: url("${fontURL}") format("woff"); }</style>\n`);
    }
    // asked for with the stylesheets, so that the formulas are drawn in it from the first paint
    $("head").append(`<link rel="preload" href="${fontURL}" as="font" type="font/woff" crossorigin="">\n`);
    return spans.length;
  },
};
