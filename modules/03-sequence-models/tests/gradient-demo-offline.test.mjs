// Without Quarto: the self-hosted libraries and the demo work in Chromium with the network cut.
//
// Serves the project root on 127.0.0.1 with a hand-made page in the module's folder, modules/<id>/
// (the folder of the real page, so the partial's relative imports resolve as on the site).  The page
// runs the OJS cells of the course demo set-up (_extensions/course/demo-setup.ojs) and the module's
// _gradient-demo.ojs through a small stand-in for Quarto's OJS runtime (ojs-harness.mjs).  (No page
// loads MathJax: formulas are typeset at render time, _extensions/course/post-render/passes/typeset-math.mjs.)
// Every request off 127.0.0.1 is blocked.  Needs vendor/ (scripts/pages/vendor_js.py) and Debian's Chromium; skipped without them.
import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync, existsSync, mkdirSync} from "node:fs";
import {join, relative} from "node:path";
import {ROOT, DEMO_SETUP, DEMO_CSS, thisModule} from "../../../tests/js/course.mjs";
import {compileOjsPage} from "../../../tests/js/ojs-harness.mjs";
import {serve, openOffline, hasChromium, plotPaths, CHROMIUM} from "../../../tests/js/browser.mjs";
import {assertNoProblems} from "../../../tests/js/page-checks.mjs";

const m = thisModule(import.meta.url);
const PARTIAL = m.page("_gradient-demo.ojs");
// the page includes the shared OJS set-up (Plot, Inputs, d3, htl from vendor/) once, before the demos
const SETUP = DEMO_SETUP;
const HARNESS = `/${m.site}/offline-harness.html`;
const VENDOR = join(ROOT, "vendor", "observable-libs.js");

function harnessPage(script) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>offline harness</title>
<link rel="stylesheet" href="/${relative(ROOT, DEMO_CSS)}">
<style>body{font-family:sans-serif;max-width:760px;margin:2rem auto;} body.quarto-dark{background:#222;color:#ddd}</style>
</head><body class="quarto-light">
<main id="harness"></main>
<script type="module">${script}</script>
</body></html>`;
}

const skip = !hasChromium() ? `no Chromium at ${CHROMIUM} (apt-get install chromium)`
  : !existsSync(VENDOR) ? "vendor/ is missing (python3 -m scripts.pages.vendor_js)" : false;

test("offline: vendored Plot/Inputs/d3 load and the demo draws and reacts", {skip}, async () => {
  const page_ = harnessPage(compileOjsPage([readFileSync(SETUP, "utf8"), readFileSync(PARTIAL, "utf8")]));
  const site = await serve(ROOT, {[HARNESS]: page_});
  const {browser, page, problems} = await openOffline(site.origin);
  try {
    // every demo within a screen of the view, so each draws at once (they draw when seen: seen() in
    // the course demo set-up; the rendered-site suite checks that lazy drawing on the real pages)
    await page.setViewportSize({width: 1280, height: 12_000});
    await page.goto(site.origin + HARNESS);
    await page.waitForFunction(() => window.__demoReady === true, null, {timeout: 30_000});
    // the libraries came from the site, and left no globals behind
    assert.deepEqual(await page.evaluate(() => [typeof window.d3, typeof window.Plot, typeof window.Inputs]), ["undefined", "undefined", "undefined"]);
    const readout = page.locator(".gradient-demo-readout");
    assert.equal(await readout.textContent(), "State after 60 steps: h = 0.000. One-step factor there: (1 − h²) · w = 0.900.");
    const before = await plotPaths(page);
    assert.ok(before.split("|").length >= 3, "ruleY, bound and measured lines drawn");
    // move the w slider to 2 and the curve and readout change
    const w = page.locator("form", {hasText: "Recurrent weight w"}).locator("input[type=range]");
    await w.fill("2");
    await page.waitForFunction((b) => {
      const d = [...document.querySelectorAll('.gradient-demo svg[class^="plot"] path')].map((p) => p.getAttribute("d")).join("|");
      return d !== b;
    }, before, {timeout: 10_000});
    assert.match(await readout.textContent(), /one-step factor there: \(1 − h²\) · w = 2\.000\./i);
    const x = page.locator("form", {hasText: "Constant input x"}).locator("input[type=range]");
    await x.fill("0.5");
    await page.waitForFunction(() => /h = 0\.9\d\d/.test(document.querySelector(".gradient-demo-readout").textContent));
    await page.evaluate(() => document.fonts.ready);
    if (process.env.SCREENSHOT_DIR) {
      mkdirSync(process.env.SCREENSHOT_DIR, {recursive: true});
      await page.screenshot({path: join(process.env.SCREENSHOT_DIR, "gradient-demo-offline-light.png"), fullPage: true});
      await page.evaluate(() => document.body.classList.replace("quarto-light", "quarto-dark"));
      await page.screenshot({path: join(process.env.SCREENSHOT_DIR, "gradient-demo-offline-dark.png"), fullPage: true});
    }
    assertNoProblems(problems);
  } finally {
    await browser.close();
    await site.close();
  }
});
