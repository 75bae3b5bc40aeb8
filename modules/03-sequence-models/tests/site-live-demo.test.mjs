// The live demo (_live-sampling-demo.ojs) as a reader meets it, on the shared render of this checkout, offline in
// Chromium at both sizes: nothing of it is fetched before Write; Write writes 300 characters from the prompt; the
// same seed writes the same text; characters outside the vocabulary are named and an empty prompt starts from a
// newline; a student's file that does not match the module's model is refused naming the tensor and both shapes
// (and the course's model plays on); one that matches plays, says so, and the course's comes back on request.
// The weights: the build's own when the rendered copy has them (they are never committed), else stand-ins at the
// module's shapes (its results.schema.json), served with the results in place of the rendered copy's.  Skipped, with the reason, where quarto or Chromium is missing.
import {test} from "node:test";
import assert from "node:assert/strict";
import {existsSync, readFileSync} from "node:fs";
import {join} from "node:path";
import {thisModule} from "../../../tests/js/course.mjs";
import {renderedSite} from "../../../tests/js/site-render.mjs";
import {serve, CHROMIUM, CHROMIUM_ARGS} from "../../../tests/js/browser.mjs";
import {SCREENS, skip} from "../../../tests/js/site-browser-checks.mjs";
import {safetensors} from "./safetensors-file.mjs";

const m = thisModule(import.meta.url);
const DEMO = ".live-sampling-demo";
const LIVE = /live-(model|sampling)\.js|\.safetensors/;

/** Stand-in weights at the shapes the module's schema holds the build's to: {file: bytes}, provenance.weights. */
function standIns(vocab) {
  const schema = JSON.parse(readFileSync(m.schema, "utf8")).properties.provenance.properties.weights.properties;
  const files = {}, record = {};
  let seed = 1;
  const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5) * 0.3;
  for (const [name, entry] of Object.entries(schema)) {
    const shapes = Object.fromEntries(Object.entries(entry.properties.tensors.properties).map(([t, s]) => [t, s.const]));
    const tensors = Object.fromEntries(Object.entries(shapes).map(([t, shape]) =>
      [t, [shape, Float32Array.from({length: shape.reduce((a, b) => a * b, 1)}, next)]]));
    const bytes = Buffer.from(safetensors(tensors, {model: name, vocab: JSON.stringify(vocab)}));
    files[`${name}.safetensors`] = {bytes, tensors};
    record[name] = {file: `${name}.safetensors`, sha256: "0".repeat(64), bytes: bytes.length, dtype: "float32", vocab, tensors: shapes};
  }
  return {files, record};
}

test("the rendered site: the live demo writes with the course's model, and with the student's", {skip}, async (t) => {
  const {dir} = await renderedSite();
  const base = `/data/${m.id}/`;
  const results = JSON.parse(readFileSync(join(dir, "_site", "data", m.id, "results.json"), "utf8"));
  const vocab = results.sampling.vocab;
  const virtual = {};
  let student;            // {tensor: [shape, values]} of both models: the student's file is both in one
  // the build's own files when the render has them (the build's output, never committed: a clone has none until
  // a build or the Site workflow brings them), else stand-ins served in their place
  const built = results.provenance.weights && Object.values(results.provenance.weights)
    .every((entry) => existsSync(join(dir, "_site", "data", m.id, entry.file)));
  if (built) {
    const {parseSafetensors} = await import(m.demoUrl("live-model"));
    student = {};
    for (const entry of Object.values(results.provenance.weights)) {
      const parsed = parseSafetensors(readFileSync(join(dir, "_site", "data", m.id, entry.file)), entry.file);
      for (const [name, {shape, data}] of Object.entries(parsed.tensors)) student[name] = [shape, data];
    }
  } else {
    const {files, record} = standIns(vocab);
    virtual[`${base}results.json`] = JSON.stringify({...results, provenance: {...results.provenance, weights: record}});
    for (const [file, {bytes}] of Object.entries(files)) virtual[`${base}${file}`] = bytes;
    student = Object.fromEntries(Object.values(files).flatMap((f) => Object.entries(f.tensors)));
  }
  const siteUrl = /^\s*site-url:\s*(\S+)/m.exec(readFileSync(join(dir, "_quarto.yml"), "utf8"))?.[1];
  const site = await serve(join(dir, "_site"), virtual, {base: siteUrl ? new URL(siteUrl).pathname : "/"});
  const {chromium} = await import("playwright-core");
  const browser = await chromium.launch({executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true});
  t.after(async () => { await browser.close(); await site.close(); });

  for (const screen of SCREENS) {
    await t.test(`at ${screen.width} px`, async () => {
      const context = await browser.newContext({viewport: {width: screen.width, height: screen.height}});
      const page = await context.newPage();
      const problems = [], asked = [];
      page.on("pageerror", (e) => problems.push(String(e)));
      page.on("console", (msg) => { if (msg.type() === "error") problems.push(msg.text()); });
      page.on("request", (r) => { if (LIVE.test(r.url())) asked.push(r.url()); });
      try {
        await page.goto(`${site.origin}/modules/${m.id}/index.html`, {waitUntil: "load"});
        await page.evaluate((sel) => document.querySelector(sel).closest(".callout").querySelector(".callout-collapse").classList.add("show"), DEMO);
        await page.locator(DEMO).scrollIntoViewIfNeeded();       // the demos start as they near the screen
        await page.locator(`${DEMO} .live-status`).waitFor();
        await page.waitForTimeout(500);
        assert.deepEqual(asked, [], "nothing of the live model is fetched before Write");
        assert.match(await page.locator(`${DEMO} .live-status`).textContent(), /Write fetches the trained LSTM \(\d\.\d MB, once\)/);

        const text = () => page.locator(`${DEMO} .live-text`).textContent();
        const write = async () => {
          // (the status of the write before also says "characters in": clear it, so the wait is for this write's)
          await page.evaluate((sel) => {
            document.querySelector(`${sel} .live-text`)?.replaceChildren();
            document.querySelector(`${sel} .live-status`)?.replaceChildren();
          }, DEMO);
          await page.locator(`${DEMO} button`, {hasText: "Write"}).click();
          await page.waitForFunction((sel) => /characters in/.test(document.querySelector(`${sel} .live-status`)?.textContent ?? ""), DEMO, {timeout: 120_000});
          return text();
        };
        const first = await write();
        assert.equal([...first].length, 300);
        assert.ok([...first].every((c) => vocab.includes(c)), "every character written is one of the model's");
        assert.deepEqual(asked.filter((u) => /safetensors/.test(u)).map((u) => u.split("/").pop()), ["lstm.safetensors"], "one model, once");
        assert.equal(await write(), first, "the same seed, prompt and settings write the same text");
        await page.locator(`${DEMO} input[type=number]`).last().fill("7");
        await page.locator(`${DEMO} input[type=number]`).last().press("Enter");
        await page.waitForFunction((sel) => /seed 7/.test(document.querySelector(`${sel} .live-status`)?.textContent ?? ""), DEMO, {timeout: 120_000});
        assert.notEqual(await text(), first, "another seed writes another text");

        await page.locator(`${DEMO} textarea`).fill("ROMEO: ça va €");
        await page.waitForFunction((sel) => /skipped/.test(document.querySelector(`${sel} .live-status`)?.textContent ?? ""), DEMO, {timeout: 120_000});
        assert.match(await page.locator(`${DEMO} .live-status`).textContent(), /Not in the model's \d+ characters, skipped: “ç”, “€”\./);
        await page.locator(`${DEMO} textarea`).fill("");
        await page.waitForFunction((sel) => /starts from a newline/.test(document.querySelector(`${sel} .live-status`)?.textContent ?? ""), DEMO, {timeout: 120_000});

        {
          // a file of another shape: refused, naming the tensor and both shapes; the course's model plays on
          const bad = {...student};
          bad["lstm.lstm.weight_hh_l0"] = [[1024, 128], new Float32Array(1024 * 128)];
          await page.setInputFiles(`${DEMO} .live-file input`, {name: "mine.safetensors", mimeType: "application/octet-stream",
            buffer: Buffer.from(safetensors(bad, {vocab: JSON.stringify(vocab)}))});
          await page.waitForFunction((sel) => /refused|is \[1024, 128\]/.test(document.querySelector(`${sel} .live-status`)?.textContent ?? ""), DEMO, {timeout: 60_000});
          assert.match(await page.locator(`${DEMO} .live-status`).textContent(),
            /mine\.safetensors: tensor "lstm\.lstm\.weight_hh_l0" is \[1024, 128\], but the module's LSTM has \[1024, 256\]\. The course's models play on\./);
          assert.equal(await page.locator(DEMO).getByRole("radio", {name: "yours"}).isDisabled(), true, "'yours' cannot be chosen");
          assert.match(await page.locator(`${DEMO} .live-output figcaption`).textContent(), /The course's LSTM/);
          // the student's file (both models in one, as the lab's save cell writes it): plays, says so, switches back
          const good = student;
          await page.setInputFiles(`${DEMO} .live-file input`, {name: "lab3_weights.safetensors", mimeType: "application/octet-stream",
            buffer: Buffer.from(safetensors(good, {vocab: JSON.stringify(vocab)}))});
          await page.waitForFunction((sel) => /Your LSTM \(lab3_weights\.safetensors\)/.test(document.querySelector(`${sel} .live-output figcaption`)?.textContent ?? ""), DEMO, {timeout: 60_000});
          const yours = await write();
          assert.equal([...yours].length, 300);
          await page.locator(DEMO).getByRole("radio", {name: "the course's"}).check();
          await page.waitForFunction((sel) => /The course's LSTM/.test(document.querySelector(`${sel} .live-output figcaption`)?.textContent ?? ""), DEMO, {timeout: 60_000});
        }
        await page.locator(DEMO).screenshot({path: join(dir, "..", `live-demo-${screen.width}.png`)});
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }
});

test("the rendered site without the trained weights (never committed): Write says the site was published without them", {skip}, async () => {
  const {dir} = await renderedSite();
  const results = JSON.parse(readFileSync(join(dir, "_site", "data", m.id, "results.json"), "utf8"));
  const recorded = results.provenance.weights;
  assert.ok(recorded, "the course's results record the trained weights");
  const siteUrl = /^\s*site-url:\s*(\S+)/m.exec(readFileSync(join(dir, "_quarto.yml"), "utf8"))?.[1];
  const site = await serve(join(dir, "_site"), {}, {base: siteUrl ? new URL(siteUrl).pathname : "/"});
  const {chromium} = await import("playwright-core");
  const browser = await chromium.launch({executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true});
  try {
    const page = await browser.newPage({viewport: {width: 390, height: 844}});
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    // a site published as a clone has it: results that record weights, and no weights files to serve
    await page.route((url) => /\.safetensors$/.test(new URL(url).pathname), (route) => route.fulfill({status: 404, body: "not found"}));
    await page.goto(`${site.origin}/modules/${m.id}/index.html`, {waitUntil: "load"});
    await page.evaluate((sel) => document.querySelector(sel).closest(".callout").querySelector(".callout-collapse").classList.add("show"), DEMO);
    await page.locator(DEMO).scrollIntoViewIfNeeded();
    await page.locator(`${DEMO} .live-status`).waitFor();
    await page.locator(`${DEMO} button`, {hasText: "Write"}).click();
    await page.waitForFunction((sel) => /published without the course's trained LSTM/.test(document.querySelector(`${sel} .live-status`)?.textContent ?? ""), DEMO, {timeout: 120_000});
    assert.doesNotMatch(await page.locator(`${DEMO} .live-status`).textContent(), /HTTP 404|undefined/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await site.close();
  }
});
