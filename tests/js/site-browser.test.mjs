// With Quarto: render the site, serve _site/ on 127.0.0.1 with every other request blocked, and
// check in Debian's Chromium that the module page works offline: equations typeset by the
// self-hosted MathJax, a collapsed callout expands on click, the w slider redraws the plot, and
// nothing logs an error.  Skipped (with the reason) where `quarto` or Chromium is missing.
//   SITE_PREBUILT=1  use the existing _site/ instead of running `quarto render` first
//   SCREENSHOT_DIR=d save screenshots of the page there
import {test} from "node:test";
import assert from "node:assert/strict";
import {readdirSync, readFileSync, existsSync, mkdirSync} from "node:fs";
import {join, relative} from "node:path";
import {execFileSync} from "node:child_process";
import {ROOT} from "./qmd-files.mjs";
import {serve, openOffline, hasChromium, onPath, plotPaths, CHROMIUM} from "./browser.mjs";

const SITE = join(ROOT, "_site");
const skip = !onPath("quarto") ? "quarto is not installed: the rendered site cannot be built here " +
    "(tests/js/offline-demo.test.mjs checks the demo and the self-hosted libraries without it)"
  : !hasChromium() ? `no Chromium at ${CHROMIUM} (scripts/setup.sh installs it when quarto is present)` : false;

function htmlFiles(dir) {
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory() ? (e.name === "site_libs" || e.name === "vendor" ? [] : htmlFiles(join(dir, e.name)))
      : e.name.endsWith(".html") ? [join(dir, e.name)] : []);
}

test("the rendered module page works with no network", {skip, timeout: 600_000}, async (t) => {
  if (process.env.SITE_PREBUILT !== "1" || !existsSync(SITE)) {
    execFileSync("quarto", ["render"], {cwd: ROOT, stdio: "inherit", timeout: 540_000});
  }
  // the page that holds the gradient demo (the OJS runtime imports ./gradient-demo.js)
  const pages = htmlFiles(SITE).filter((f) => readFileSync(f, "utf8").includes("gradient-demo.js"));
  assert.ok(pages.length >= 1, "no rendered page contains the gradient demo");
  const pagePath = "/" + relative(SITE, pages[0]);
  const html = readFileSync(pages[0], "utf8");
  assert.doesNotMatch(html, /cdn\.jsdelivr\.net\/npm\/mathjax|polyfill/, "the page still loads MathJax or the polyfill from a CDN");

  const site = await serve(SITE);
  const {browser, page, problems} = await openOffline(site.origin);
  t.after(async () => { await browser.close(); await site.close(); });

  await page.goto(site.origin + pagePath, {waitUntil: "load"});

  // equations typeset by MathJax (CHTML output), with no TeX errors
  await page.waitForFunction(() => document.querySelectorAll("mjx-container").length > 0, null, {timeout: 60_000});
  assert.ok(await page.locator("mjx-container").count() >= 12, "display equations (1) to (12) at least");
  assert.equal(await page.locator("mjx-merror").count(), 0, "TeX errors on the page");

  // a collapsed callout (a Check yourself answer or an After the Lab box) opens on click
  const header = page.locator('.callout-header[data-bs-toggle="collapse"]').first();
  await header.scrollIntoViewIfNeeded();
  const target = await header.getAttribute("data-bs-target");
  assert.ok(target, "no collapsible callout on the page");
  assert.equal(await page.locator(target).evaluate((el) => el.classList.contains("show")), false, "callout should start collapsed");
  await header.click();
  await page.waitForFunction((sel) => document.querySelector(sel)?.classList.contains("show"), target, {timeout: 10_000});
  assert.ok(await page.locator(target).isVisible());

  // the OJS demo: loaded from the site, drawn, and redrawn when w moves
  await page.waitForSelector('.gradient-demo svg[class^="plot"] path', {timeout: 60_000});
  assert.equal(await page.locator(".observablehq--error").count(), 0, "OJS cells failed");
  const readout = page.locator(".gradient-demo-readout");
  assert.match(await readout.textContent(), /^State after 60 steps: h = 0\.000\./);
  const before = await plotPaths(page);
  const w = page.locator(".gradient-demo form", {hasText: "Recurrent weight w"}).locator("input[type=range]");
  await w.scrollIntoViewIfNeeded();
  await w.fill("2");
  await page.waitForFunction((b) => [...document.querySelectorAll('.gradient-demo svg[class^="plot"] path')]
    .map((p) => p.getAttribute("d")).join("|") !== b, before, {timeout: 10_000});
  assert.match(await readout.textContent(), /\(1 − h²\) · w = 2\.000\./);

  if (process.env.SCREENSHOT_DIR) {
    mkdirSync(process.env.SCREENSHOT_DIR, {recursive: true});
    await page.screenshot({path: join(process.env.SCREENSHOT_DIR, "module-page.png"), fullPage: true});
  }
  assert.deepEqual(problems.blocked, [], "requests off the site (each is a CDN the page still needs)");
  assert.deepEqual(problems.failed, [], "failed requests");
  assert.deepEqual(problems.pageErrors, [], "uncaught page errors");
  assert.deepEqual(problems.console, [], "console errors");
});
