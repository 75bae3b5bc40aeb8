// _extensions/course/your-run-slots.lua: each After-the-Lab box gets the empty slot your-run.js writes
// into, run by Quarto on a small page: the slot is the first thing in the box's body, under its title,
// named by the box's id, and a box whose id cannot be told stops the render, naming it.  (The real
// page's boxes and their slots: site-your-run.test.mjs.)
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
const FILTER = join(ROOT, "_extensions", "course", "your-run-slots.lua");

/** `quarto render` of one page with the filter, as _quarto.yml runs it: {status, log, $}. */
function render(body) {
  const dir = mkdtempSync(join(tmpdir(), "your-run-slots-"));
  try {
    writeFileSync(join(dir, "p.qmd"), `---\ntitle: P\nfilters:\n  - path: ${JSON.stringify(FILTER)}\n    at: pre-ast\n---\n\n${body}\n`);
    const r = spawnSync("quarto", ["render", "p.qmd"], {cwd: dir, encoding: "utf8"});
    return {status: r.status, log: `${r.stdout}\n${r.stderr}`, $: r.status === 0 ? cheerio.load(readFileSync(join(dir, "p.html"), "utf8")) : null};
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
}

test("each After-the-Lab box gets one slot, first in its body under its title; other callouts none", {skip}, () => {
  const {status, log, $} = render(`::: {.callout-note .after-the-lab .after-the-lab-3a collapse="true"}
## After the Lab: 3A

First paragraph.
:::

::: {.callout-tip .after-the-lab .after-the-lab-results}
No title here.
:::

::: {.callout-note}
## Not a box
Text.
:::`);
  assert.equal(status, 0, log);
  const slots = $(".your-run-slot").toArray().map((el) => {
    const box = $(el).closest(".callout");
    return [$(el).attr("data-box"), box.hasClass(`after-the-lab-${$(el).attr("data-box")}`), $(el).prev().length, $(el).next().text().trim(), $(el).text().trim()];
  });
  assert.deepEqual(slots, [["3a", true, 0, "First paragraph.", ""], ["results", true, 0, "No title here.", ""]]);
  assert.match($(".after-the-lab-3a .callout-title-container").text(), /After the Lab: 3A/, "the title stays the callout's title");
});

test("a box whose id cannot be told stops the render, naming it", {skip}, () => {
  for (const classes of [".after-the-lab", ".after-the-lab .after-the-lab-a .after-the-lab-b"]) {
    const {status, log} = render(`::: {.callout-note ${classes}}\nText.\n:::`);
    assert.notEqual(status, 0, classes);
    assert.match(log, /course your-run-slots\.lua: expected one \.after-the-lab-<box> class on each \.after-the-lab callout, and found [02]/, classes);
  }
});
