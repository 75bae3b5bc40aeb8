// What the course takes from Quarto in the browser (_extensions/course/post-render/quarto-dependencies.json,
// the entries with `browser`), on the tests' one real render (site-render.mjs) in Chromium: each
// element is on its page and each global is defined, at load or once what loads it has run (the
// search once a reader reaches for it, the OJS runtime once a demo nears the screen).  A dependency
// missing here fails this test, not only a console.error in a page script.
import {test} from "node:test";
import assert from "node:assert/strict";
import {renderedSite} from "./site-render.mjs";
import {hasChromium, onPath, openOffline, offlinePage, serve} from "./browser.mjs";
import {DEPENDENCIES} from "../../_extensions/course/post-render/dependencies.mjs";
import {modules} from "./course.mjs";

const skip = !onPath("quarto") ? "quarto is not on PATH: the rendered site cannot be built here"
  : !hasChromium() ? "Chromium is not installed (scripts/setup.sh installs it)" : false;
const BROWSER = DEPENDENCIES.filter((d) => d.browser);

/** What makes a dependency that loads later load: a reader reaching for the search, a demo near the screen. */
const BRING = {
  search: (page) => page.dispatchEvent("#quarto-search .search-standin", "pointerover"),
  // a reader's first scroll wakes the OJS runtime (ojs-on-demand.js)
  ojs: (page) => page.mouse.wheel(0, 600),
};

/** Whether window.<path> (a.b.c) is defined in `page`, waiting up to `ms` for it. */
const hasGlobal = (page, path, ms) => page.waitForFunction((p) => p.split(".").reduce((o, k) => o?.[k], window) !== undefined, path, {timeout: ms})
  .then(() => true, () => false);

test("every browser dependency listed has a page, and a selector or a global to look for", () => {
  assert.ok(BROWSER.length >= 8, `the list names the browser's dependencies (${BROWSER.length})`);
  for (const d of BROWSER) {
    assert.ok(d.browser.page && (d.browser.selector || d.browser.global), `${d.id}: browser.page and a selector or global`);
    if (d.browser.after) assert.ok(BRING[d.browser.after], `${d.id}: after "${d.browser.after}" is one of ${Object.keys(BRING)}`);
  }
});

test("what the course takes from Quarto in the browser is there, on the real render in Chromium", {skip, timeout: 240_000}, async () => {
  const {site} = await renderedSite();
  const server = await serve(site);
  const {browser, context} = await openOffline(server.origin);
  const missing = [];
  try {
    await context.close();
    // a page named modules/<module>/... is every module's page of that name (the list names no module)
    const pagesOf = (named) => named.includes("<module>") ? modules().map((m) => named.replace("<module>", m.id)) : [named];
    for (const named of [...new Set(BROWSER.map((d) => d.browser.page))]) for (const rel of pagesOf(named)) {
      const deps = BROWSER.filter((d) => d.browser.page === named);
      const {page, context: ctx} = await offlinePage(browser, server.origin);
      await page.goto(`${server.origin}/${rel}`, {waitUntil: "load"});
      for (const d of deps.filter((x) => !x.browser.after)) {
        const there = d.browser.selector ? await page.locator(d.browser.selector).count() > 0 : await hasGlobal(page, d.browser.global, 2000);
        if (!there) missing.push(`${d.id} on ${rel}: ${d.browser.selector ?? `window.${d.browser.global}`} (${d.name})`);
      }
      for (const d of deps.filter((x) => x.browser.after)) {
        await BRING[d.browser.after](page);
        if (!(await hasGlobal(page, d.browser.global, 20_000))) missing.push(`${d.id} on ${rel} after ${d.browser.after}: window.${d.browser.global} (${d.name})`);
      }
      await ctx.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  assert.deepEqual(missing, [], "each dependency the course's browser code takes from Quarto is on the rendered page");
});
