// The post-render's contract with Quarto, on the suite's one real render (site-render.mjs), which keeps
// what each pass changed (raw-pages/report.json): every pass changed something on the real render, and
// every page pass every page it targets.  That each pass stops the render, naming itself and the page,
// when Quarto's markup changes is the catalogue of planted Quarto changes (tests/contracts/, run by
// quarto-contracts.test.mjs and `make contracts`), planted in a copy of Quarto's own resources.
import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {join} from "node:path";
import {renderedSite} from "./site-render.mjs";
import {onPath} from "./browser.mjs";
import {PASSES} from "../../_extensions/course/post-render/passes/index.mjs";

const skip = onPath("quarto") ? false : "quarto is not on PATH: the rendered site cannot be built here";
const MODULE_PAGE = "modules/03-sequence-models/index.html";
const GLOSSARY = "modules/03-sequence-models/glossary.html";

test("the post-render's contract: every pass changes every page it targets on the real render", {skip}, async () => {
  const rendered = await renderedSite();
  const report = JSON.parse(readFileSync(join(rendered.dir, "raw-pages", "report.json"), "utf8"));
  assert.deepEqual(Object.keys(report), PASSES.map((p) => p.name), "the report lists every pass, in order");
  for (const p of PASSES) {
    const changes = Object.values(report[p.name]);
    assert.ok(changes.length > 0 && changes.every((n) => n > 0), `${p.name} changed something on every page it ran on: ${JSON.stringify(report[p.name])}`);
  }
  for (const p of PASSES.filter((x) => !x.site)) {
    // each page pass reached the pages it is for
    const expected = {"ojs-on-demand": [MODULE_PAGE, "modules/03-sequence-models/slides.html"], "typeset-math": [MODULE_PAGE, GLOSSARY]}[p.name] ?? [MODULE_PAGE];
    for (const rel of expected) assert.ok(report[p.name][rel] > 0, `${p.name} changed ${rel}`);
  }
});

