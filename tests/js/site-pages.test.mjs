// The site as a student gets it: the shared render of this checkout (tests/js/site-render.mjs: a
// plain `quarto render` of a copy holding what a fresh clone holds), served on 127.0.0.1 and opened
// in Debian's Chromium with every other request blocked (a classroom with no Wi-Fi).
//
// Every page, at 1280 × 720 (a projector) and 390 × 844 (a phone):
//   no console error, page error, failed request or request to another host; no OJS error box;
//   no literal {{<, ?@, @eq-, ?var: or ?ref: in the visible text; every image loaded; every
//   cross-reference finds its target; nothing wider than the screen; every equation number in view
//   at 390 px; the navbar on one row; the tab's icon loads; axe-core reports no serious or critical
//   violation; every OJS cell is a hidden set-up cell or a demo (div.cell.demo), and every demo
//   draws.  Each demo fits a 1280 × 720 screen with its controls.
// Every module's page: each demo draws in the place kept for it (within 2 px, at both sizes: the
// freshness test of its demo-places.css, `make demo-places`).
// Screenshots of every page at both sizes go to build/site/screenshots/, the measured render and page
// times to build/site/report-pages.json.  Skipped, with the reason, where quarto, Chromium or
// axe-core is missing.
//   SITE_RENDERED=DIR  check DIR/_site (an earlier render) instead
// A module's page's own behaviours: its tests (modules/<id>/tests/site-module-page.test.mjs); the search: site-search.test.mjs;
// the purged stylesheets: site-purged-css.test.mjs; what they share: site-browser-checks.mjs.
import {test} from "node:test";
import assert from "node:assert/strict";
import {existsSync, mkdirSync, readFileSync} from "node:fs";
import {join, relative} from "node:path";
import {ROOT, modules} from "./course.mjs";
import {renderedSite} from "./site-render.mjs";
import {offlinePage} from "./browser.mjs";
import {measureDemos, moved, PLACES_FILE, COMMAND as PLACES_COMMAND} from "../../scripts/pages/demo_places.mjs";
import {OUT, SCREENS, DEMOS, AXE, skip as noSite, openSite, openPage, pagesOf, writeReport, pageDefects, axeViolations} from "./site-browser-checks.mjs";

const skip = noSite || (!existsSync(AXE) ? "node_modules/axe-core is missing (npm ci)" : false);

/** Each demo, scrolled to the top of the screen below the navbar, fits with its controls. */
async function demosOffScreen(page) {
  return page.evaluate((DEMOS) => {
    const nav = document.querySelector("#quarto-header")?.getBoundingClientRect().height ?? 0;
    return [...document.querySelectorAll(DEMOS)].map((d) => {
      const h = d.getBoundingClientRect().height;
      return h + nav > window.innerHeight ? `${d.className}: ${Math.round(h)} px tall below a ${Math.round(nav)} px navbar` : null;
    }).filter(Boolean);
  }, DEMOS);
}

test("the rendered site: every page offline, on a projector and a phone", {skip}, async (t) => {
  const {dir, renderSeconds, reused} = await renderedSite();
  const {site, browser, close} = await openSite(dir);
  t.after(close);
  mkdirSync(join(OUT, "screenshots"), {recursive: true});
  const report = {render_seconds: renderSeconds, render_reused: reused, pages: {}};

  const pages = pagesOf(join(dir, "_site"));
  for (const m of modules()) assert.ok(pages.includes(`${m.site}/index.html`), `${m.id}: no page; pages: ${pages.join(", ")}`);
  for (const path of pages) {
    for (const screen of SCREENS) {
      await t.test(`${path} at ${screen.width} × ${screen.height}`, async () => {
        const {context, page, problems, readyMs} = await openPage(browser, site.origin, path, screen);
        try {
          (report.pages[path] ??= {})[screen.name] = {ready_ms: readyMs};
          // in the screenshot, every figure loaded (each kept in its place until near the screen)
          await page.evaluate(async () => {
            await Promise.all([...document.images].map((img) => { img.loading = "eager"; return img.decode().catch(() => null); }));
          });
          const shot = join(OUT, "screenshots", `${path.replace(/\.html$/, "").replaceAll("/", "_")}-${screen.width}.png`);
          await page.screenshot({path: shot, fullPage: true});
          const defects = [
            ...await pageDefects(page, screen),
            ...(screen.width === 1280 ? await demosOffScreen(page) : []),
            ...(await axeViolations(page)).map((v) => `axe-core: ${v}`),
            ...problems.blocked.map((u) => `request to another host: ${u}`),
            ...problems.failed.map((u) => `failed request: ${u}`),
            ...problems.pageErrors.map((e) => `page error: ${e}`),
            ...problems.console.map((e) => `console error: ${e}`),
          ];
          assert.deepEqual(defects, [], `what goes wrong on ${path} at ${screen.width} px`);
        } finally {
          await context.close();
        }
      });
    }
  }

  await t.test("each module's page: each demo draws in the place kept for it, on a projector and a phone", async () => {
    // (its place: --demo-place, measured by `make demo-places` into modules/<id>/demo-places.css; a demo
    // in a collapsed callout, once the callout opens): this is that file's freshness test
    for (const m of modules()) {
      for (const screen of SCREENS) {
        const {context, page} = await offlinePage(browser, site.origin, {width: screen.width, height: screen.height});
        try {
          await page.goto(`${site.origin}/${m.site}/index.html`, {waitUntil: "load"});
          assert.deepEqual(moved(await measureDemos(page)), [], `${m.site}/index.html: demos that move the text below them at ` +
            `${screen.width} px: their places (${m.site}/${PLACES_FILE}) are stale; run \`${PLACES_COMMAND} MODULE=${m.id}\` and commit it`);
        } finally {
          await context.close();
        }
      }
    }
  });

  const written = writeReport("pages", report);
  t.diagnostic(`quarto render: ${renderSeconds?.toFixed(1) ?? "(not run)"} s; report in ${written}, screenshots in ${relative(ROOT, OUT)}/screenshots/`);
});
