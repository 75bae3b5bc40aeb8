// _extensions/course/math.lua: each formula pandoc read, handed to the typesetter as the course's own
// markup, run by Quarto on a small project: a numbered equation's number comes from Quarto's
// cross-reference, the TeX arrives whole (its < and & escaped once), the math stylesheet is linked only
// where there is a formula, and Quarto writes no math script.  An equation whose number Quarto writes
// otherwise (here: html-math-method: mathjax, which makes it a \tag) stops the render, naming it.
import {test} from "node:test";
import assert from "node:assert/strict";
import {spawnSync} from "node:child_process";
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import * as cheerio from "cheerio";
import {onPath} from "./browser.mjs";
import {ROOT} from "./site-render.mjs";

const skip = onPath("quarto") ? false : "quarto is not on PATH: the filter runs inside Quarto's render";
const FILTER = join(ROOT, "_extensions", "course", "math.lua");

/** `quarto render` of a project holding `pages` ({name: markdown}) with the filter: {status, log, html(name)}. */
function render(pages, mathMethod = "plain") {
  const dir = mkdtempSync(join(tmpdir(), "math-filter-"));
  writeFileSync(join(dir, "_quarto.yml"), `project: {type: default}\nformat:\n  html:\n    html-math-method: ${mathMethod}\n`
    + `    filters:\n      - path: ${JSON.stringify(FILTER)}\n        at: post-quarto\n`);
  for (const [name, text] of Object.entries(pages)) writeFileSync(join(dir, name), text);
  const r = spawnSync("quarto", ["render"], {cwd: dir, encoding: "utf8"});
  const html = (name) => readFileSync(join(dir, name.replace(/\.qmd$/, ".html")), "utf8");
  return {status: r.status, log: `${r.stdout}\n${r.stderr}`, html, done: () => rmSync(dir, {recursive: true, force: true})};
}

const FORMULAS = `---
title: Formulas
---

Inline $a < b \\& c$ and a numbered equation:

$$
h_t = \\tanh(W h_{t-1})
$$ {#eq-step}

$$
\\begin{aligned} x &= 1 \\end{aligned}
$$

As @eq-step says.
`;

test("formulas reach the typesetter whole, numbered as Quarto numbers them; no math script; the stylesheet only where needed", {skip}, () => {
  const r = render({"formulas.qmd": FORMULAS, "text.qmd": "---\ntitle: Text\n---\n\nNo formulas here.\n"});
  try {
    assert.equal(r.status, 0, r.log);
    const $ = cheerio.load(r.html("formulas.qmd"));
    const tex = $("span.course-tex").toArray().map((el) => [$(el).attr("class"), $(el).attr("data-number"), $(el).text()]);
    assert.deepEqual(tex, [
      ["course-tex inline", undefined, "\\(a < b \\& c\\)"],
      ["course-tex display", "1", "\\[\nh_t = \\tanh(W h_{t-1})\\]"],
      ["course-tex display", undefined, "\\[\n\\begin{aligned} x &= 1 \\end{aligned}\n\\]"],
    ]);
    assert.equal($("#eq-step > span.course-tex").length, 1, "the equation's anchor holds it");
    assert.match($('a[href="#eq-step"]').text(), /1/, "the cross-reference names the same number");
    assert.equal($("span.math").length, 0, "no formula left for pandoc's own output");
    assert.equal($('script[src*="mathjax" i], script[src*="katex" i]').length, 0, "no math script");
    assert.equal($('link[rel="stylesheet"][href$="quarto-contrib/course-math/math.css"]').length, 1, "the math stylesheet");
    assert.doesNotMatch(r.html("text.qmd"), /course-math/, "a page without formulas does not load it");
  } finally {
    r.done();
  }
});

test("an equation whose number Quarto writes otherwise stops the render, naming it", {skip}, () => {
  const r = render({"formulas.qmd": FORMULAS}, "mathjax");
  try {
    assert.notEqual(r.status, 0);
    assert.match(r.log, /course math\.lua: expected the number of equation #eq-step as Quarto writes it for html-math-method: plain .*found: +h_t = \\tanh\(W h_\{t-1\}\) \\tag\{1\}/);
  } finally {
    r.done();
  }
});
