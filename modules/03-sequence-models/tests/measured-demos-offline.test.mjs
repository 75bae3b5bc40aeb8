// Without Quarto: the issue-11 demos (sampling, clipping, forget-gate memory, measured gradients)
// run in Chromium with the network cut, from the fixture's data, and every control redraws its plot.
//
// Serves the project root on 127.0.0.1 with a hand-made page in the module's folder, modules/<id>/
// (so the partials' relative URLs resolve as on the site), and /data/<id>/results.json replaced by
// the module's fixture, tests/fixtures/<id>/results.json (the committed data may predate the keys
// these demos read).  The page runs the OJS cells of the course demo set-up
// (_extensions/course/demo-setup.ojs) and the six demo partials (modules/<id>/_*.ojs) through ojs-harness.mjs.
// Each control is moved with the keyboard (focus, arrow key), as a student without a mouse would,
// or by choosing an option; the SVG of that demo's plot must change and nothing may log an error.
// Prints each control's redraw time (redraw-time.mjs) in this harness, which is not Quarto's runtime.
import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync, existsSync, mkdirSync} from "node:fs";
import {join, relative} from "node:path";
import {ROOT, DEMO_SETUP, DEMO_CSS, thisModule} from "../../../tests/js/course.mjs";
import {compileOjsPage} from "../../../tests/js/ojs-harness.mjs";
import {serve, openOffline, hasChromium, CHROMIUM} from "../../../tests/js/browser.mjs";
import {assertNoProblems} from "../../../tests/js/page-checks.mjs";
import {redrawTime} from "../../../tests/js/redraw-time.mjs";

const m = thisModule(import.meta.url);
const PARTIALS = [DEMO_SETUP, ...["_sampling-demo.ojs", "_clipping-demo.ojs", "_clipping-measured.ojs",
  "_forget-gate-demo.ojs", "_gradient-measured-rnn.ojs", "_gradient-measured-lstm.ojs"].map((p) => m.page(p))];
const HARNESS = `/${m.site}/demos-harness.html`;
const RESULTS = `/${relative(ROOT, m.results)}`;     // what the demo set-up fetches: /data/<id>/results.json

// [demo root, control label, how to move it]; the SVG inside the root must change
const CONTROLS = [
  [".sampling-demo", "Prompt (test split)", "select"],
  [".sampling-demo", "Temperature τ", "ArrowLeft"],
  [".sampling-demo", "Top-k: k (65: off)", "ArrowLeft"],
  [".sampling-demo", "Nucleus: p (1: off)", "ArrowLeft"],
  [".clipping-demo", "g, first coordinate", "ArrowRight"],
  [".clipping-demo", "g, second coordinate", "ArrowLeft"],
  [".clipping-demo", "Threshold κ", "ArrowRight"],
  [".clipping-measured", "Step", "ArrowRight"],
  [".forget-gate-demo", "Distance k (steps)", "ArrowRight"],
  [".forget-gate-demo", "Fraction θ that must survive", "ArrowRight"],
  [".gradient-measured-rnn", "Distance T − s", "ArrowRight"],
  [".gradient-measured-lstm", "Distance T − s", "ArrowRight"],
];

function harnessPage(script) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>demos harness</title>
<link rel="stylesheet" href="/${relative(ROOT, DEMO_CSS)}">
<style>body{font-family:sans-serif;max-width:760px;margin:2rem auto;}</style>
</head><body class="quarto-light"><main id="harness"></main>
<script type="module">${script}</script>
</body></html>`;
}

/** The harness page's script: the set-up and the six demo partials, each in a div with its fence's classes. */
function pageScript() {
  return compileOjsPage(PARTIALS.map((p) => readFileSync(p, "utf8")));
}

const skip = !hasChromium() ? `no Chromium at ${CHROMIUM} (apt-get install chromium)`
  : !existsSync(join(ROOT, "vendor", "observable-libs.js")) ? "vendor/ is missing (python3 -m scripts.pages.vendor_js)" : false;

test("offline: the four demos draw from the data and every control redraws its plot", {skip}, async () => {
  const site = await serve(ROOT, {[HARNESS]: harnessPage(pageScript()), [RESULTS]: readFileSync(m.fixture, "utf8")});
  const {browser, page, problems} = await openOffline(site.origin);
  try {
    // every demo within a screen of the view, so each draws at once (they draw when seen: seen() in
    // the course demo set-up; the rendered-site suite checks that lazy drawing on the real pages)
    await page.setViewportSize({width: 1280, height: 12_000});
    await page.goto(site.origin + HARNESS);
    await page.waitForFunction(() => window.__demoReady === true, null, {timeout: 30_000});
    assert.equal(await page.locator(".observablehq--error").count(), 0,
      (await page.locator(".observablehq--error").allTextContents()).join("\n"));
    const timings = [];
    for (const [root, label, how] of CONTROLS) {
      const form = page.locator(`${root} form`, {hasText: label}).first();
      const svg = async () => page.locator(`${root} svg`).evaluateAll((els) => els.map((e) => e.outerHTML).join(""));
      const before = await svg();
      const readoutBefore = await page.locator(`${root} .demo-readout`).allTextContents();
      const renders = await page.evaluate(() => window.__renders || 0);
      if (how === "select") {
        await form.locator("select").selectOption({index: 2});
      } else {
        const range = form.locator("input[type=range]");
        await range.focus();
        await page.keyboard.press(how);
      }
      await page.waitForFunction((n) => (window.__renders || 0) > n, renders, {timeout: 10_000});
      assert.notEqual(await svg(), before, `${root}: moving "${label}" did not change the plot`);
      assert.notDeepEqual(await page.locator(`${root} .demo-readout`).allTextContents(), readoutBefore, `${root}: "${label}" left the readout as it was`);
      timings.push([label, await redrawTime(page, root, label)]);
    }
    // τ = 0 is the arg max: one character holds all the mass, entropy 0, perplexity 1
    await setRange(page, ".sampling-demo", "Temperature τ", 0);
    assert.match(await page.locator(".sampling-demo .demo-readout").textContent(), /0\.000 nats, perplexity eH = 1\.00\./);
    assert.match(await page.locator(".sampling-demo figcaption").textContent(), /greedy/);
    // the clipping readout follows Equation 9 for g = (3, 4), κ = 1 after the sliders are set back
    await setRange(page, ".clipping-demo", "g, first coordinate", 3);
    await setRange(page, ".clipping-demo", "g, second coordinate", 4);
    await setRange(page, ".clipping-demo", "Threshold κ", 1);
    assert.match(await page.locator(".clipping-demo .demo-readout").first().textContent(), /factor min\(1, κ\/‖g‖\) = 0\.200/);
    // the pointer sets g: a click at the plot's centre makes g = 0
    const frame = page.locator(".clip-arrows");
    await frame.scrollIntoViewIfNeeded();
    const box = await frame.boundingBox();
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForFunction(() => /g = 0 has no direction/.test(document.querySelector(".clipping-demo .demo-readout").textContent));
    console.log("redraw times in this harness (ms; see redraw-time.mjs):", JSON.stringify(timings));
    if (process.env.SCREENSHOT_DIR) {
      mkdirSync(process.env.SCREENSHOT_DIR, {recursive: true});
      await page.screenshot({path: join(process.env.SCREENSHOT_DIR, "measured-demos-offline.png"), fullPage: true});
    }
    assert.equal(await page.locator(".observablehq--error").count(), 0);
    assertNoProblems(problems);
  } finally {
    await browser.close();
    await site.close();
  }
});

/** Set a range input of a demo to a value, as typing into its number box would, and wait for the redraw. */
async function setRange(page, root, label, value) {
  const renders = await page.evaluate(() => window.__renders || 0);
  await page.locator(`${root} form`, {hasText: label}).first().locator("input[type=range]").fill(String(value));
  await page.waitForFunction((n) => (window.__renders || 0) > n, renders, {timeout: 10_000});
}
