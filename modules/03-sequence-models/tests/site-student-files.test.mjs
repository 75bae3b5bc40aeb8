// Every results file Lab 3 really writes along the paths students take (student-files.mjs), chosen in the Your run
// box of the rendered module page and lab page, offline in Chromium (issue 41): the box takes it; every After-the-Lab
// box shows the student's values (as run-claims.js's boxValue computes them from the file here) or "not in your
// file", and the results table's perplexity column the student's perplexities; what the file lacks or holds as not a
// number is named in the status; no "nan", "NaN", "undefined", "Infinity" or "null" appears that the course's page
// did not already have; no console, page or demo error; the demos play the file where it has their data.  At
// 1280 px every file; at 390 px the diverged one and the skipped Challenge, with a screenshot of each in
// build/site/screenshots/.  Skipped, with the reason, where quarto or Chromium is missing.
import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync, mkdirSync} from "node:fs";
import {join} from "node:path";
import {thisModule, ROOT} from "../../../tests/js/course.mjs";
import {fmt_ppl} from "../../../_extensions/course/formatting.js";
import {checkFile} from "../../../_extensions/course/run-file.js";
import {boxValue} from "../../../_extensions/course/run-claims.js";
import {renderedSite} from "../../../tests/js/site-render.mjs";
import {offlinePage} from "../../../tests/js/browser.mjs";
import {skip, openSite, OUT} from "../../../tests/js/site-browser-checks.mjs";
import {studentFiles} from "./student-files.mjs";

const M = thisModule(import.meta.url);
const read = (p) => JSON.parse(readFileSync(p, "utf8"));
const {Validator, jsonata} = await import("../../../vendor/run-libs.js");
const options = {id: M.id, file: "lab3_results.json", schema: read(M.schema), Validator, course: read(M.results),
  provenance: read(join(ROOT, "schemas", "provenance.schema.json")), labRun: read(join(ROOT, "schemas", "lab-run.schema.json"))};
const BOXES = read(join(M.dir, "after-the-lab.json")).boxes;
const RAW = /\b(nan|NaN|undefined|Infinity|null)\b/g;
const PAGES = {module: `${M.site}/index.html`, lab: `${M.site}/lab.html`};
const PHONE_TOO = new Set(["diverged", "student-challenge-skipped"]);
const FILES = skip ? [] : studentFiles(M.id);

const upload = (text) => ({name: "lab3_results.json", mimeType: "application/json", buffer: Buffer.from(text)});
async function choose(page, text) {
  await page.evaluate(() => { const s = document.querySelector(".your-run-status"); s.textContent = ""; delete s.dataset.kind; });
  await page.setInputFiles("#your-run-file", upload(text));
  return page.waitForFunction(() => {
    const s = document.querySelector(".your-run-status");
    return s?.textContent && s.dataset.kind !== "busy" ? {kind: s.dataset.kind, text: s.textContent} : null;
  }, null, {timeout: 60_000}).then((h) => h.jsonValue());
}
const rawWords = (page) => page.evaluate(() => document.body.innerText).then((t) => (t.match(/\b(nan|NaN|undefined|Infinity|null)\b/g) ?? []).length);

test("the rendered site takes every file the lab writes", {skip}, async (t) => {
  const {dir} = await renderedSite();
  const {site, browser, close} = await openSite(dir);
  t.after(close);
  mkdirSync(join(OUT, "screenshots"), {recursive: true});
  for (const f of FILES) {
    const checked = checkFile(f.text, options);
    const data = checked.data;
    for (const screen of [{width: 1280, height: 720}, ...(PHONE_TOO.has(f.name) ? [{width: 390, height: 844}] : [])]) {
      for (const [pageName, path] of Object.entries(PAGES)) {
        await t.test(`${f.name} on the ${pageName} page at ${screen.width} px`, async () => {
          const {context, page, problems} = await offlinePage(browser, site.origin, screen);
          try {
            await page.goto(`${site.origin}/${path}`, {waitUntil: "load"});
            const before = await rawWords(page);
            const status = await choose(page, f.text);
            assert.equal(status.kind, "ok", status.text);
            assert.doesNotMatch(status.text, RAW, status.text);
            if (pageName === "module") {
              for (const box of BOXES) {
                const rows = await page.locator(`.after-the-lab-${box.id} .your-run-compare tbody tr`)
                  .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
                assert.equal(rows.length, box.values.length, `box ${box.id}`);
                for (const [i, spec] of box.values.entries()) {
                  const want = (await boxValue(jsonata, spec, data)) ?? "not in your file";
                  assert.equal(rows[i][2], want, `box ${box.id}, ${spec.label}`);
                }
              }
              const column = await page.locator(".after-the-lab-results table:not(.your-run-table) tbody tr td.your-run-column").allTextContents();
              const results = BOXES.find((b) => b.table);
              const wanted = await Promise.all(results.table.rows.map(async (of) => (await boxValue(jsonata, {of, format: results.table.format}, data)) ?? "–"));
              assert.deepEqual(column, wanted, "the perplexity column");
              if (data.models?.lstm?.perplexity != null) assert.ok(column.includes(fmt_ppl(data.models.lstm.perplexity)));
              // the demos play the student's model where the file has their data
              await page.locator("input[name=your-run-demos][value=yours]").check();
              await page.evaluate(() => { for (const c of document.querySelectorAll(".after-the-lab .callout-collapse")) c.classList.add("show"); });
              const prompt = data.sampling?.prompts?.[0];
              if (prompt && prompt.logits.every((v) => v !== null)) {
                await page.locator(".sampling-demo").scrollIntoViewIfNeeded();
                await page.mouse.wheel(0, 1);
                await page.waitForFunction((p) => document.querySelector(".sampling-demo")?.textContent.includes(p),
                  prompt.text.slice(0, 20), {timeout: 60_000});
              }
              await page.waitForTimeout(300);
            }
            assert.ok(await rawWords(page) <= before, `no nan, NaN, undefined, Infinity or null shown (${before} before)`);
            if (screen.width === 390 || f.name === "diverged")
              await page.screenshot({path: join(OUT, "screenshots", `student-file-${f.name}-${pageName}-${screen.width}.png`), fullPage: false});
            assert.deepEqual([...problems.console, ...problems.pageErrors, ...problems.failed, ...problems.blocked], []);
          } finally {
            await context.close();
          }
        });
      }
    }
  }
});
