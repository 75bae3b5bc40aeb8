// The deck and the module page are one source: the deck (slides.qmd) writes none of the shared
// content itself.  Its equations, figures, demo and in-room questions come from the partials the
// page includes too, so a change to one of them reaches both at the next render.
import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync, existsSync} from "node:fs";
import {basename, join} from "node:path";
import {ROOT, includeTarget} from "../../../tests/js/qmd-files.mjs";
import {thisModule} from "../../../tests/js/course.mjs";

const m = thisModule(import.meta.url);
const read = (name) => readFileSync(m.page(name), "utf8");
// the files a page of the module includes (as Quarto finds them), in order
const includes = (name) => [...read(name).matchAll(/^[ \t]*\{\{<\s*include\s+(\S+?)\s*>\}\}/gm)]
  .map((x) => includeTarget(m.page(name), x[1]));
const SETUP = join(ROOT, "_extensions", "course", "demo-setup.ojs");

test("the deck writes no equation, figure, demo or question of its own", () => {
  const deck = read("slides.qmd");
  assert.doesNotMatch(deck, /\$\$/, "display math belongs in an _eq-*.qmd partial");
  assert.doesNotMatch(deck, /\{#(?:eq|fig)-/, "labelled equations and figures belong in partials");
  assert.doesNotMatch(deck, /!\[/, "figures belong in _fig-*.qmd partials");
  // an OJS fence holds an include and nothing else: the demo's cells are _gradient-demo.ojs
  for (const [, body] of deck.matchAll(/^```\{ojs\}\n([\s\S]*?)^```$/gm))
    assert.match(body, /^\{\{< include \S+\.ojs >\}\}\n$/, `an OJS block of the deck's own: ${body.slice(0, 80)}`);
  assert.doesNotMatch(deck, /\*\*Check yourself\.\*\*/, "the questions belong in _check-*.qmd partials");
});

test("what the deck includes, the page includes too", () => {
  const deckFiles = includes("slides.qmd");
  const page = new Set(includes("index.qmd"));
  for (const file of deckFiles) {
    assert.ok(existsSync(file), `${file} does not exist`);
    assert.ok(page.has(file), `the deck includes ${file}, which the page does not`);
  }
  // the module's own partials by name; the course's shared ones by their path
  const deck = deckFiles.map((f) => (f.startsWith(m.dir) ? basename(f) : f));
  const shared = (prefix) => deck.filter((n) => n.startsWith(prefix));
  assert.equal(shared("_eq-").length, 11, "equations 1-11 (sections 2-5)");
  assert.deepEqual(shared("_fig-"), ["_fig-rnn-unrolled.qmd", "_fig-lstm-cell.qmd"]);
  assert.deepEqual(shared("_check-"), ["_check-forget-gates.qmd", "_check-fair-comparison.qmd"]);
  assert.deepEqual(shared("_answer-"), ["_answer-forget-gates.qmd", "_answer-fair-comparison.qmd"]);
  assert.ok(deck.includes("_gradient-demo.ojs") && deck.includes(SETUP), "the section 4 demo, after the course's demo set-up");
  // the page includes the equations in the same order, so both number them 1 to 11 alike
  const pageOrder = includes("index.qmd").map((f) => basename(f)).filter((n) => n.startsWith("_eq-"));
  assert.deepEqual(shared("_eq-"), pageOrder.slice(0, 11));
});
