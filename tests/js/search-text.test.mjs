// The search index reads as text (_extensions/course/post-render/search-text.mjs, through the search-index pass of
// the post-render): each formula of a result is plain Unicode, never TeX, and a demo's OJS source is
// not in a result's text; the deck is left out of the index by its own front matter (search: false),
// its slides repeating the module page.  The rendered index is checked on the tests' one render of the site.
import {test} from "node:test";
import assert from "node:assert/strict";
import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import YAML from "yaml";
import {texToText, searchableText} from "../../_extensions/course/post-render/search-text.mjs";
import searchIndex, {ojsSources, withoutCode} from "../../_extensions/course/post-render/passes/search-index.mjs";
import {Page} from "../../_extensions/course/post-render/page.mjs";
import {Site, runPasses} from "../../_extensions/course/post-render/pipeline.mjs";
import {Cache} from "../../_extensions/course/post-render/cache.mjs";
import {ContractError} from "../../_extensions/course/post-render/contract.mjs";
import {ROOT} from "./qmd-files.mjs";
import {renderedSite} from "./site-render.mjs";
import {onPath} from "./browser.mjs";
import {handMadeInventory} from "./hand-made-inventory.mjs";

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

test("the deck is left out of the index by its front matter: every deck, and the new module template's", () => {
  const decks = [...readdirSync(join(ROOT, "modules")).map((id) => join(ROOT, "modules", id, "slides.qmd")).filter(existsSync),
    join(ROOT, "scripts", "module_template", "module", "slides.qmd")];
  assert.ok(decks.length >= 2, decks.join(", "));
  for (const deck of decks) {
    const front = /^---\n([\s\S]*?)\n---\n/.exec(readFileSync(deck, "utf8"));
    assert.ok(front, `${deck}: no front matter`);
    assert.equal(YAML.parse(front[1]).search, false, `${deck}: search: false`);
  }
});

const OJS_PAGE = '<html><head></head><body><!-- inventory {"formulas": 1, "ojs_cells": 1, "ojs_hidden": 1} --><main><p>Before. <span class="math inline">\\(h_t\\)</span></p>'
  + '<div class="cell"><div class="sourceCode cell-code hidden" id="cb1"><pre class="sourceCode js code-with-copy"><code class="sourceCode javascript">'
  + '<span id="cb1-1"><a href="#cb1-1"></a>x <span class="op">=</span> a <span class="op">&lt;</span> b</span>\n<span id="cb1-2">y = `${x}`</span></code></pre></div>'
  + '<div id="ojs-cell-1"></div></div></main></body></html>';

/** The search-index pass over a site of `pages` ({path: html}) and `entries` (its search.json): the index it writes. */
async function indexed(pages, entries) {
  const dir = mkdtempSync(join(tmpdir(), "search-index-"));
  try {
    for (const [rel, html] of Object.entries(pages)) writeFileSync(join(dir, rel), html);
    writeFileSync(join(dir, "search.json"), JSON.stringify(entries));
    const site = new Site({dir, project: ROOT, cache: new Cache(null), quartoShare: null, inventory: handMadeInventory});
    await runPasses(site, [searchIndex]);
    return JSON.parse(site.writes.get(join(dir, "search.json")));
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
}

test("the search-index pass: each field's formulas as text, a page's OJS source out of its text, the rest as it was", async () => {
  const entries = [
    {objectID: "a.html", href: "a.html", title: "\\(h_t\\)", section: "", text: "Before. \\(h_t\\)\nx = a &lt; b\ny = `${x}`\n\nAfter", crumbs: ["\\(x\\)"]},
    {objectID: "a.html#s1", href: "a.html#s1", title: "s", section: "\\(\\sigma\\)", text: "y"},
  ];
  assert.deepEqual(await indexed({"a.html": OJS_PAGE}, entries), [
    {objectID: "a.html", href: "a.html", title: "hₜ", section: "", text: "Before. hₜ\nAfter", crumbs: ["\\(x\\)"]},
    {objectID: "a.html#s1", href: "a.html#s1", title: "s", section: "σ", text: "y"},
  ]);
  // an index that no longer holds what the pass takes out: Quarto's indexing has changed
  await assert.rejects(indexed({"a.html": OJS_PAGE}, [{objectID: "a.html", href: "a.html", title: "\\(h_t\\)", section: "", text: "Before."}]),
    (e) => e instanceof ContractError && /"search-index"/.test(e.message) && /search\.json \(a\.html\)/.test(e.message));
});

test("an OJS cell's source leaves the result's text; the prose around it stays", () => {
  const html = '<div class="sourceCode cell-code hidden" id="cb1"><pre class="sourceCode js code-with-copy"><code class="sourceCode javascript">' +
    '<span id="cb1-1"><a href="#cb1-1"></a>x <span class="op">=</span> a <span class="op">&lt;</span> b</span>\n<span id="cb1-2">y = `${x}`</span></code></pre></div>' +
    '<div class="sourceCode"><pre class="sourceCode python"><code>def rnn_cell_step(): pass</code></pre></div>';
  const codes = ojsSources(new Page("/site", "/site/a.html", `<html><body>${html}</body></html>`));
  assert.deepEqual(codes, ["x = a &lt; b\ny = `${x}`"]);
  assert.equal(withoutCode("Before.\nx = a &lt; b\ny = `${x}`\n\n\nAfter, def rnn_cell_step(): pass", codes),
    "Before.\nAfter, def rnn_cell_step(): pass");
});

const skip = onPath("quarto") ? false : "quarto is not on PATH: there is no rendered index to check";

test("the rendered site's search index: no TeX in any result, no slide, the pages all there", {skip}, async () => {
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
