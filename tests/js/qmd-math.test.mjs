// Every display and inline equation of every .qmd compiles with MathJax 3 (mathjax-full, the
// same TeX input jax as the self-hosted tex-chtml-full.js) with no error and no undefined macro.
// Equations are found the way Quarto finds them: pandoc's markdown reader (pypandoc-binary's
// pandoc, from requirements.txt), so code blocks, inline code and escaped dollars are not math.
import {test} from "node:test";
import assert from "node:assert/strict";
import {createRequire} from "node:module";
import {execFileSync} from "node:child_process";
import {qmdFiles, rel, findPandoc} from "./qmd-files.mjs";

const require = createRequire(import.meta.url);
const {mathjax} = require("mathjax-full/js/mathjax.js");
const {TeX} = require("mathjax-full/js/input/tex.js");
const {SVG} = require("mathjax-full/js/output/svg.js");
const {liteAdaptor} = require("mathjax-full/js/adaptors/liteAdaptor.js");
const {RegisterHTMLHandler} = require("mathjax-full/js/handlers/html.js");
const {AllPackages} = require("mathjax-full/js/input/tex/AllPackages.js");

RegisterHTMLHandler(liteAdaptor());
// without 'noerrors' and 'noundefined', a TeX error or an unknown macro throws instead of
// being drawn in red on the page
const packages = AllPackages.filter((p) => p !== "noerrors" && p !== "noundefined");
const tex = new TeX({packages, formatError: (_jax, err) => { throw err; }});
const doc = mathjax.document("", {InputJax: tex, OutputJax: new SVG({fontCache: "none"})});

/** Compile one TeX string; returns null or the error message. */
export function mathError(source, display) {
  try {
    doc.convert(source, {display});
    return null;
  } catch (e) {
    return e.message || String(e);
  } finally {
    doc.clear?.();
  }
}

/** [{tex, display}] of a .qmd, from pandoc's JSON AST. */
function equations(pandoc, file) {
  const ast = JSON.parse(execFileSync(pandoc, ["-f", "markdown", "-t", "json", file], {encoding: "utf8", maxBuffer: 1 << 26}));
  const found = [];
  const walk = (node) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === "object") {
      if (node.t === "Math") found.push({display: node.c[0].t === "DisplayMath", tex: node.c[1]});
      else if (node.c !== undefined) walk(node.c);
      if (node.blocks) walk(node.blocks);
    }
  };
  walk(ast);
  return found;
}

test("the TeX compiler used here rejects bad TeX (the check can fail)", () => {
  assert.equal(mathError("\\frac{a}{b}", true), null);
  assert.match(mathError("\\notamacro x", false), /Undefined control sequence/);
  assert.ok(mathError("\\frac{a}{b", true));
});

const pandoc = findPandoc();
const files = qmdFiles();

test("every equation of every .qmd compiles with MathJax", {skip: pandoc ? false : "no pandoc (pip install pypandoc-binary)"}, () => {
  let total = 0;
  const errors = [];
  for (const file of files) {
    for (const {tex: source, display} of equations(pandoc, file)) {
      total++;
      const err = mathError(source, display);
      if (err) errors.push(`${rel(file)}: ${display ? "$$" : "$"}${source.trim().slice(0, 90)}…  ->  ${err}`);
    }
  }
  assert.deepEqual(errors, [], `${errors.length} of ${total} equations fail:\n${errors.join("\n")}`);
  console.log(`${total} equations in ${files.length} .qmd files compile`);
});
