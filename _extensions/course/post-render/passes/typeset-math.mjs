// Math typeset here, once: the browser does no TeX work and loads no MathJax.  Each formula math.lua hands
// over (<span class="course-tex inline|display" data-number="N">\(TeX\)</span>) becomes MathML the browser
// draws, with TeX's layout written out (../native-mathml.mjs), in the font math-font.mjs cuts; a numbered
// one [body | (N)] (_extensions/course/math.css).  A formula the filter did not hand over (pandoc's own
// <span class="math">), a TeX error, or one MathML Core cannot draw stops the render, naming page and
// formula.  A page's typeset formulas are cached: a render that changes none of them skips MathJax.
import {createRequire} from "node:module";
import {readFileSync} from "node:fs";
import {fileURLToPath} from "node:url";
import {Cache} from "../cache.mjs";
import {ContractError, expectSome} from "../contract.mjs";
import {expectCount} from "../inventory.mjs";
import {nativeMathML} from "../native-mathml.mjs";

const require = createRequire(import.meta.url);
// the math stylesheet that math.lua links (as Quarto places a filter's dependency), and beside it the
// math font's subset, which math-font.mjs writes and the stylesheet names
export const MATH_CSS = "site_libs/quarto-contrib/course-math/math.css";
export const MATH_FONT = "site_libs/quarto-contrib/course-math/course-math.woff";
// an inline formula wider than this (in em of the text) may not fit a phone's line: it scrolls
const WIDE_INLINE_EM = 14;
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
    /** MathJax's internal tree of the formula, which native-mathml.mjs reads */
    tree: (tex, display) => item(tex, display).root,
    /** the width of the typeset formula in em, from MathJax's own metrics */
    widthEm: (tex, display) => doc.outputJax.getBBox(item(tex, display), doc).w,
  };
}

/** The markup replacing one formula (its TeX, and its equation number if it has one). */
export function formulaMarkup(t, display, tex, where, number = null) {
  let out;
  try {
    out = t.mathml(tex, display);
  } catch (err) {
    throw new TexError(`${where}: TeX error in ${display ? "\\[" : "\\("}${tex.trim()}${display ? "\\]" : "\\)"}: ${err.message}`);
  }
  if (display) {
    const label = number === null ? "" : `<span class="equation-number">(${escapeHTML(number)})</span>`;
    return `<span class="math display${label ? " numbered" : ""}"><span class="equation-body" tabindex="0">${out}</span>${label}</span>`;
  }
  return t.widthEm(tex, false) > WIDE_INLINE_EM ? `<span class="math inline wide" tabindex="0">${out}</span>` : `<span class="math inline">${out}</span>`;
}

const escapeHTML = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const FORMULA = "span.course-tex";

export default {
  name: "typeset-math",
  // a page whose author wrote a formula
  targets: (page) => page.inventory.formulas > 0,
  async apply(page, site) {
    const {$} = page;
    const leftover = page.$("span.math");
    if (leftover.length) throw new ContractError(this.name, page.rel, "every formula handed over by _extensions/course/math.lua", `pandoc's own <span class="math"> (${leftover.first().text().slice(0, 40)})`);
    const spans = page.$(FORMULA).toArray();
    expectCount(this.name, page, page.inventory.formulas, spans.length, `<span class="course-tex"> (${FORMULA})`, "one per formula the author wrote");
    const formulas = spans.map((el) => {
      const m = DELIMITED.exec($(el).text());
      if (!m) throw new ContractError(this.name, page.rel, `TeX between \\( \\) or \\[ \\] in <span class="course-tex"> (math.lua)`, $(el).text().slice(0, 40));
      return [$(el).hasClass("display"), m[2], $(el).attr("data-number") ?? null];
    });
    const markups = await site.cache.get(this.name, Cache.key(MATHML_WRITER, formulas), () => {
      const t = typesetter();
      return formulas.map(([display, tex, number]) => formulaMarkup(t, display, tex, page.rel, number));
    });
    expectSome(this.name, page, `link[rel="stylesheet"][href="${page.toRoot + MATH_CSS}"]`, `the math stylesheet math.lua links (${MATH_CSS})`);
    spans.forEach((el, i) => $(el).replaceWith(markups[i]));
    // asked for with the stylesheets, so that the formulas are drawn in it from the first paint
    $("head").append(`<link rel="preload" href="${page.toRoot + MATH_FONT}" as="font" type="font/woff" crossorigin="">\n`);
    return spans.length;
  },
};
