// The purged stylesheets (the purge-css pass: each page links to <sheet>.used.css, the rules of
// Quarto's whole sheet that the site uses), from the shared render of this checkout, served on
// 127.0.0.1 and opened in Debian's Chromium with every other request blocked: every page looks the
// same (each element's box and look) with the purged stylesheets as with Quarto's whole ones, with
// callouts open, the phone's menu open, the search open and in dark mode.  Skipped, with the
// reason, where quarto or Chromium is missing.
//   SITE_RENDERED=DIR  check DIR/_site (an earlier render) instead
import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {join} from "node:path";
import {renderedSite} from "./site-render.mjs";
import {offlinePage} from "./browser.mjs";
import {SCREENS, MODULE_PAGE, skip, openSite, pagesOf, ready, openEverything, openPhoneMenu, openSearch, elementLooks}
  from "./site-browser-checks.mjs";

/** At the top, and the table of contents told so (its active entry, and the entries it opens,
    follow the last scroll, in Quarto's throttled handler of the document's scroll events, which a
    layout still settling can leave stale: so the event is sent again, to the document where that
    handler listens, until they stay the same for two rounds). */
async function settle(page) {
  await page.evaluate(async () => {
    scrollTo(0, 0);
    const open = () => [...document.querySelectorAll("#TOC .active, #TOC .show, #TOC ul:not(.collapse)")].map((e) => e.outerHTML.slice(0, 80)).join("|");
    let last = null, same = 0;
    for (let i = 0; i < 30 && same < 2; i++) {
      document.dispatchEvent(new Event("scroll", {bubbles: true}));
      await new Promise((r) => setTimeout(r, 250));
      const now = open();
      same = now === last ? same + 1 : 0;
      last = now;
    }
  });
}

/** In the page: each <link> to a purged sheet (<sheet>.used[.min].css) pointed at Quarto's whole
    sheet (<sheet>[.min].css), the element and its rel kept; resolves once each one in use has
    loaded, with what became of each: its addresses, whether it is in use (rel=stylesheet, not
    Quarto's disabled-stylesheet for the other colour scheme) and, if so, whether the whole sheet
    loaded and is the link's sheet in document.styleSheets, and one rule of it that the purged
    sheet lacks. */
async function toWholeSheets() {
  return Promise.all([...document.querySelectorAll('link[href*=".used."]')].map(async (link) => {
    const purged = link.getAttribute("href"), whole = purged.replace(/\.used(\.min)?\.css/, "$1.css");
    const inUse = link.relList.contains("stylesheet") && !link.disabled;
    const before = new Set(link.sheet ? [...link.sheet.cssRules].map((r) => r.cssText) : []);
    const loaded = inUse && new Promise((ok) => {
      link.addEventListener("load", () => ok(true), {once: true});
      link.addEventListener("error", () => ok(false), {once: true});
      setTimeout(() => ok(false), 15_000);
    });
    link.setAttribute("href", whole);
    const swap = {purged, whole, url: link.href, inUse};
    if (!inUse) return swap;
    swap.loaded = await loaded;
    const sheet = link.sheet;
    swap.applied = !!sheet && sheet.href === link.href && [...document.styleSheets].includes(sheet);
    swap.rules = [before.size, sheet ? sheet.cssRules.length : 0];
    swap.onlyWhole = sheet ? [...sheet.cssRules].map((r) => r.cssText).find((r) => !before.has(r))?.slice(0, 80) ?? null : null;
    return swap;
  }));
}

test("the rendered site: the purged stylesheets, on a projector and a phone", {skip}, async (t) => {
  const {dir} = await renderedSite();
  const {site, browser, close} = await openSite(dir);
  t.after(close);
  const pages = pagesOf(join(dir, "_site"));

  await t.test("every page looks the same with the purged stylesheets as with Quarto's whole ones", async () => {
    // (the purge-css pass: the pages link to <sheet>.used.css; here each page is opened once per
    // state a reader brings about: callouts open and demos drawn, the phone's menu open, dark mode,
    // the search open; every element's box and look is taken with the purged sheets, then each
    // link is pointed at Quarto's whole sheet and, once it has loaded and the page has settled,
    // taken again and compared)
    const whole = join(dir, "_site");
    const states = [
      {name: "1280 px, callouts open, demos drawn", screen: SCREENS[0], act: openEverything},
      {name: "390 px, the menu open", screen: SCREENS[1], act: openPhoneMenu},
      {name: "1280 px, dark mode", screen: SCREENS[0], dark: true, act: openEverything},
      {name: "390 px, the search open", screen: SCREENS[1], act: (page) => openSearch(page)},
    ];
    const differences = [], compared = [], notSwapped = [];
    for (const path of pages) {
      if (!readFileSync(join(whole, path), "utf8").includes(".used.")) continue;   // a deck: Bootstrap not used
      compared.push(path);
      for (const state of states) {
        const {context, page, requests} = await offlinePage(browser, site.origin, {width: state.screen.width, height: state.screen.height});
        try {
          const asked = [];
          page.on("request", (r) => asked.push(r.url()));
          await page.emulateMedia({reducedMotion: "reduce"});
          if (state.dark) await context.addInitScript(() => localStorage.setItem("quarto-color-scheme", "alternate"));
          await page.goto(`${site.origin}/${path}`, {waitUntil: "load"});
          await ready(page, requests);
          await state.act(page, requests);
          await settle(page);
          const used = await page.evaluate(elementLooks);
          const swaps = await page.evaluate(toWholeSheets);
          await page.evaluate(() => document.fonts.ready);   // (any font a rule of the whole sheets asks for)
          await settle(page);
          const all = await page.evaluate(elementLooks);

          // the whole sheets asked for and in use: the comparison is not of the purged sheets with themselves
          const inUse = swaps.filter((s) => s.inUse);
          const sheets = inUse.map((s) => s.whole.replace(/.*\//, "").replace(/-[0-9a-f]{32}\./, "-HASH.")).sort();
          // (in dark mode Quarto's dark sheet is laid over the light one)
          const expected = ["bootstrap-HASH.min.css", ...(state.dark ? ["bootstrap-dark-HASH.min.css"] : []), "bootstrap-icons.css"];
          if (JSON.stringify(sheets) !== JSON.stringify(expected))
            notSwapped.push(`${path}, ${state.name}: the whole sheets in use are ${sheets.join(", ") || "none"}, not ${expected.join(", ")}`);
          for (const s of inUse) {
            if (!(s.loaded && s.applied && s.onlyWhole && s.rules[1] > s.rules[0] && asked.includes(s.url)))
              notSwapped.push(`${path}, ${state.name}: ${s.whole} (in place of ${s.purged}): asked for ${asked.includes(s.url)}, ` +
                `loaded ${s.loaded}, the link's sheet in document.styleSheets ${s.applied}, ${s.rules[1]} rules against the purged ${s.rules[0]}, ` +
                `a rule only it has: ${s.onlyWhole}`);
          }

          if (used.length !== all.length) differences.push(`${path}, ${state.name}: ${used.length} elements against ${all.length}`);
          else for (let i = 0; i < used.length && differences.length < 20; i++)
            if (used[i].look !== all[i].look) differences.push(`${path}, ${state.name}: ${used[i].where}\n  purged: ${used[i].look}\n  whole:  ${all[i].look}`);
        } finally {
          await context.close();
        }
      }
    }
    assert.ok(compared.includes(MODULE_PAGE) && compared.includes("index.html"), `pages linking the purged sheets: ${compared.join(", ")}`);
    assert.deepEqual(notSwapped, [], "Quarto's whole sheets not asked for, loaded and applied in place of the purged ones");
    assert.deepEqual(differences, [], "elements that look different with the purged stylesheets");
  });
});
