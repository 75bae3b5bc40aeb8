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
// Screenshots of every page at both sizes go to build/site/screenshots/, the measured render and page
// times to build/site/report-pages.json.  Skipped, with the reason, where quarto, Chromium or
// axe-core is missing.
//   SITE_RENDERED=DIR  check DIR/_site (an earlier render) instead
// The module page's own behaviours: site-module-page.test.mjs; the search: site-search.test.mjs;
// the purged stylesheets: site-purged-css.test.mjs; what they share: site-browser-checks.mjs.
import {test} from "node:test";
import assert from "node:assert/strict";
import {existsSync, mkdirSync, readFileSync} from "node:fs";
import {join, relative} from "node:path";
import {ROOT, modules} from "./course.mjs";
import {renderedSite} from "./site-render.mjs";
import {OUT, SCREENS, DEMOS, skip as noSite, openSite, openPage, pagesOf, writeReport} from "./site-browser-checks.mjs";

const AXE = join(ROOT, "node_modules", "axe-core", "axe.min.js");
const LITERALS = [/\{\{</, /\?@/, /@eq-/, /\?var:/, /\?ref:/];
const skip = noSite || (!existsSync(AXE) ? "node_modules/axe-core is missing (npm ci)" : false);

/** What a reader would see go wrong on the open page; [] when nothing does. */
async function pageDefects(page, screen) {
  return page.evaluate(async ({screen, literals, demos}) => {
    const bad = [];
    const W = document.documentElement.clientWidth;
    for (const e of document.querySelectorAll(".observablehq--error, .callout-important .callout-title-container"))
      if (/OJS|Error/.test(e.textContent)) bad.push(`OJS error box: ${e.textContent.trim().slice(0, 120)}`);
    const text = document.body.innerText;
    for (const re of literals.map((s) => new RegExp(s))) {
      const m = re.exec(text);
      if (m) bad.push(`literal ${m[0]} in the text: …${text.slice(Math.max(0, m.index - 60), m.index + 60).replace(/\s+/g, " ")}…`);
    }
    const broken = await Promise.all([...document.images].map((img) => {
      img.loading = "eager";
      return img.decode().then(() => (img.naturalWidth > 0 ? null : img.src), () => img.src);
    }));
    for (const src of broken.filter(Boolean)) bad.push(`image not loaded: ${src}`);
    // cross-references (Quarto's script turns their href into a full address at load time)
    const here = location.pathname.replace(/index\.html$/, "");
    for (const a of document.querySelectorAll("a.quarto-xref")) {
      const url = new URL(a.href, location.href);
      const id = decodeURIComponent(url.hash.replace(/^#\/?/, ""));     // a reveal.js deck writes #/id
      if (url.pathname.replace(/index\.html$/, "") === here && !document.getElementById(id))
        bad.push(`cross-reference to nothing on the page: ${a.textContent} (${url.hash})`);
    }
    if (document.documentElement.scrollWidth > W)
      bad.push(`page is ${document.documentElement.scrollWidth} px wide on a ${W} px screen`);
    // (a reveal.js deck shows one slide at a time: its equations are checked slide by slide elsewhere)
    if (screen.width < 600 && !document.querySelector(".reveal")) {
      for (const eq of document.querySelectorAll("[id^=eq-]")) {
        const num = eq.querySelector(".equation-number");
        const r = num?.getBoundingClientRect();
        if (!r || r.width === 0 || r.left < 0 || r.right > W) bad.push(`${eq.id}: its number is not in view`);
      }
    }
    // the tab's icon (without one, a browser asks for /favicon.ico, a 404 on every first visit)
    const icon = document.querySelector('link[rel~="icon"]');
    if (!icon) bad.push("no icon for the tab (website: favicon in _quarto.yml)");
    else if (!(await fetch(icon.href).then((r) => r.ok && /svg|image/.test(r.headers.get("content-type")), () => false)))
      bad.push(`the tab's icon does not load: ${icon.href}`);
    // the navbar is one row at every width: its menu button, title, colour-scheme toggle and search
    // side by side (on a phone, each row more is text the reader cannot see)
    const rowOf = (sel) => { const r = document.querySelector(`#quarto-header ${sel}`)?.getBoundingClientRect(); return r && r.width ? r : null; };
    const title = rowOf(".navbar-brand-container");
    for (const sel of [".navbar-toggler", ".quarto-navbar-tools", "#quarto-search"]) {
      const r = rowOf(sel);
      if (title && r && (r.top >= title.bottom || r.bottom <= title.top))
        bad.push(`navbar: ${sel} on another row than the title (${Math.round(r.top)} px against ${Math.round(title.top)}-${Math.round(title.bottom)} px)`);
    }
    // every OJS cell is a hidden set-up cell or a demo, so the demo checks here reach every demo
    for (const cell of document.querySelectorAll("div.cell:has([id^=ojs-cell-])"))
      if (!cell.matches(`.hidden, ${demos}`)) bad.push(`an OJS cell neither hidden nor a demo (${demos}): class="${cell.className}"`);
    return bad;
  }, {screen, literals: LITERALS.map((re) => re.source), demos: DEMOS});
}

async function axeViolations(page) {
  await page.addScriptTag({content: readFileSync(AXE, "utf8")});
  const result = await page.evaluate(() => window.axe.run(document, {resultTypes: ["violations"]}));
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help}; ${v.nodes.length} element(s), e.g. ${v.nodes[0].target.join(" ")}`);
}

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

  const written = writeReport("pages", report);
  t.diagnostic(`quarto render: ${renderSeconds?.toFixed(1) ?? "(not run)"} s; report in ${written}, screenshots in ${relative(ROOT, OUT)}/screenshots/`);
});
