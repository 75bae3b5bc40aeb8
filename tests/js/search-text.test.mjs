// The search index reads as text (scripts/search_text.mjs, a post-render step): each formula of a
// result is plain Unicode, never TeX, and the deck is left out of the index (its slides repeat the
// module page).  The rendered index is checked on the tests' one render of the site.
import {test} from "node:test";
import assert from "node:assert/strict";
import {existsSync, readFileSync} from "node:fs";
import {join} from "node:path";
import {texToText, searchableText, rewriteIndex, ojsSources, withoutCode} from "../../scripts/search_text.mjs";
import {renderedSite} from "./site-render.mjs";
import {onPath} from "./browser.mjs";

// what a reader may never see in a result: TeX delimiters, commands, braces of a sub/superscript
const TEX = /\\[()[\]]|\\[A-Za-z]+|[_^]\{/;

test("formulas become readable Unicode", () => {
  const cases = [
    ["f_t = \\sigma(W_f h_{t-1} + U_f x_t + b_f)", "fₜ = σ(W_f hₜ₋₁ + U_f xₜ + b_f)"],
    ["\\lVert W \\rVert^{t-s}", "‖W‖ᵗ⁻ˢ"],
    ["\\mathcal{L} = \\frac{1}{T}\\sum_{t=1}^{T} \\mathcal{L}_t", "ℒ = 1/T ∑ₜ₌₁ᵀ ℒₜ"],
    ["\\hat{y}_t = \\mathrm{softmax}(z_t)", "y\u0302ₜ = softmax(zₜ)"],
    ["x_t = e_{w_t} \\in \\mathbb{R}^d", "xₜ = e_(wₜ) ∈ ℝᵈ"],
    ["\\frac{\\partial h_t}{\\partial h_s} = \\prod_{j=s+1}^{t} \\frac{\\partial h_j}{\\partial h_{j-1}}. \\tag{6}",
      "∂hₜ/∂hₛ = ∏ⱼ₌ₛ₊₁ᵗ ∂hⱼ/(∂hⱼ₋₁). (6)"],
    ["\\tilde{c}_t", "c̃ₜ"],
    ["\\lvert V \\rvert = 65", "|V| = 65"],
    ["g \\leftarrow g \\cdot \\min(1, \\kappa / \\lVert g \\rVert)", "g ← g · min(1, κ / ‖g‖)"],
    ["\\sqrt{d_h}", "√dₕ"],
    ["\\begin{aligned} a &= b \\\\ c &= d \\end{aligned}", "a = b; c = d"],
  ];
  for (const [tex, want] of cases) assert.equal(texToText(tex), want, tex);
});

test("no TeX survives any formula, and text outside formulas is untouched", () => {
  const text = "The gate \\(f_t = \\sigma(W_f h_{t-1})\\) is in \\((0, 1)\\); W_f is a name, x^2 too, and \\[\\lVert W \\rVert &lt; 1\\]";
  const out = searchableText(text);
  assert.doesNotMatch(out, TEX);
  assert.equal(out, "The gate fₜ = σ(W_f hₜ₋₁) is in (0, 1); W_f is a name, x^2 too, and ‖W‖ &lt; 1");
  assert.equal(searchableText(out), out, "a second pass changes nothing");
  assert.doesNotMatch(texToText("\\unknowncommand{x}_{ab}"), TEX);
});

test("the deck is left out of the index; other pages keep every field", () => {
  const entries = [
    {objectID: "a.html", href: "a.html", title: "\\(h_t\\)", section: "", text: "x"},
    {objectID: "modules/m/slides.html#s1", href: "modules/m/slides.html#s1", title: "s", section: "", text: "y"},
  ];
  assert.deepEqual(rewriteIndex(entries), [{objectID: "a.html", href: "a.html", title: "hₜ", section: "", text: "x"}]);
});

test("an OJS cell's source leaves the result's text; the prose around it stays", () => {
  const html = '<div class="sourceCode cell-code hidden" id="cb1"><pre class="sourceCode js code-with-copy"><code class="sourceCode javascript">' +
    '<span id="cb1-1"><a href="#cb1-1"></a>x <span class="op">=</span> a <span class="op">&lt;</span> b</span>\n<span id="cb1-2">y = `${x}`</span></code></pre></div>' +
    '<div class="sourceCode"><pre class="sourceCode python"><code>def rnn_cell_step(): pass</code></pre></div>';
  const codes = ojsSources(html);
  assert.deepEqual(codes, ["x = a &lt; b\ny = `${x}`"]);
  assert.equal(withoutCode("Before.\nx = a &lt; b\ny = `${x}`\n\n\nAfter, def rnn_cell_step(): pass", codes),
    "Before.\nAfter, def rnn_cell_step(): pass");
});

const skip = onPath("quarto") ? false : "quarto is not on PATH: there is no rendered index to check";

test("the rendered site's search index: no TeX in any result, no slide, the pages all there", {skip, timeout: 900_000}, async () => {
  const {site} = await renderedSite();
  const file = join(site, "search.json");
  assert.ok(existsSync(file), "no search.json in the rendered site");
  const entries = JSON.parse(readFileSync(file, "utf8"));
  const bad = [];
  for (const e of entries) {
    for (const key of ["title", "section", "text"]) {
      const m = TEX.exec(e[key] ?? "");
      if (m) bad.push(`${e.href} (${key}): …${e[key].slice(Math.max(0, m.index - 40), m.index + 40)}…`);
    }
  }
  assert.deepEqual(bad, []);
  for (const tex of ["\\(", "\\sigma", "_{"]) assert.ok(!JSON.stringify(entries).includes(JSON.stringify(tex).slice(1, -1)), tex);
  assert.ok(!entries.some((e) => /slides\.html/.test(e.href)), "a slide of the deck is in the index");
  const pages = new Set(entries.map((e) => e.href.split("#")[0]));
  for (const p of ["index.html", "modules/03-sequence-models/index.html", "modules/03-sequence-models/lab.html", "modules/03-sequence-models/glossary.html"]) assert.ok(pages.has(p), p);
  assert.ok(entries.some((e) => e.text.includes("fₜ = σ(W_f hₜ₋₁ + U_f xₜ + b_f)")), "the forget gate reads as text");
  const code = entries.filter((e) => /Plot\.plot|Inputs\.range|htl\.html|=&gt; /.test(e.text)).map((e) => e.href);
  assert.deepEqual(code, [], "a demo's OJS source is in the results' text");
});
