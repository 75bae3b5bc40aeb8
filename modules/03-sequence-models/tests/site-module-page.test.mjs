// Module 3's page (this folder's module) as a student gets it,
// from the shared render of this checkout, served on 127.0.0.1 and opened in Debian's Chromium with
// every other request blocked (a classroom with no Wi-Fi): equations (1)-(12), each
// cross-referenced; the w slider redraws the plot; a collapsed callout opens; a cross-reference
// previews its equation on hover and on focus; its icon fonts are asked for before the body; its
// text paints with no demo script loaded, within 1.0 MB; a demo draws when scrolled to, and one in a
// collapsed callout when it opens (each in the place kept for it, on every module's page:
// tests/js/site-pages.test.mjs);
// Quarto's set-up at DOMContentLoaded runs after the event; a link into the module page (an
// address, a link in it, a reload, and a reload after scrolling down) lands its target below the
// navbar and it stays; on a phone each diagram keeps a readable width and scrolls sideways.
// The first paint and the bytes loaded go to build/site/report-module-page.json.  Skipped, with the
// reason, where quarto or Chromium is missing.
//   SITE_RENDERED=DIR  check DIR/_site (an earlier render) instead
import {test} from "node:test";
import assert from "node:assert/strict";
import {sep} from "node:path";
import {thisModule} from "../../../tests/js/course.mjs";
import {renderedSite} from "../../../tests/js/site-render.mjs";
import {plotPaths, offlinePage} from "../../../tests/js/browser.mjs";
import {SCREENS, skip, openSite, openPage, ready, writeReport} from "../../../tests/js/site-browser-checks.mjs";

const M = thisModule(import.meta.url);
const MODULE_PAGE = `${M.site}/index.html`;

const BYTES_BUDGET = 200_000;   // bytes sent (gzipped) at load, before any demo

test("the rendered site: the module page, on a projector and a phone", {skip}, async (t) => {
  const {dir, renderSeconds, reused} = await renderedSite();
  const {site, browser, close} = await openSite(dir);
  t.after(close);
  const report = {render_seconds: renderSeconds, render_reused: reused};

  await t.test("the module page: equations (1)-(12) cross-referenced, the w slider redraws the demo, a callout opens", async () => {
    const {context, page, problems} = await openPage(browser, site.origin, MODULE_PAGE, SCREENS[0]);
    try {
      const header = page.locator('.callout-header[data-bs-toggle="collapse"]').first();
      const target = await header.getAttribute("data-bs-target");
      assert.equal(await page.locator(target).evaluate((el) => el.classList.contains("show")), false, "callout starts collapsed");
      await header.click();
      await page.waitForFunction((sel) => document.querySelector(sel)?.classList.contains("show"), target, {timeout: 10_000});
      const before = await plotPaths(page);
      const w = page.locator(".gradient-demo form", {hasText: "Recurrent weight w"}).locator("input[type=range]");
      await w.fill("2");
      await page.waitForFunction((b) => [...document.querySelectorAll('.gradient-demo svg[class^="plot"] path')]
        .map((p) => p.getAttribute("d")).join("|") !== b, before, {timeout: 10_000});
      assert.match(await page.locator(".gradient-demo-readout").textContent(), /\(1 − h²\) · w = 2\.000\./);
      // the numbered equations (1)-(12), each cross-referenced from the prose
      const numbers = await page.$$eval(".equation-number", (els) => els.map((e) => e.textContent));
      assert.deepEqual(numbers, Array.from({length: 12}, (_, i) => `(${i + 1})`));
      const refs = await page.$$eval("a.quarto-xref", (as) => as.filter((a) => new URL(a.href).hash.startsWith("#eq-"))
        .map((a) => a.textContent.replace(/\s/g, " ")));
      for (let n = 1; n <= 12; n++) assert.ok(refs.includes(`Equation ${n}`), `no cross-reference to Equation ${n}`);
      assert.deepEqual([...problems.console, ...problems.pageErrors, ...problems.failed], []);
    } finally {
      await context.close();
    }
  });

  await t.test("the module page: a link into the page lands its target at the top of the screen, below the navbar, and it stays there, on a projector and a phone", async () => {
    // (measured as a reader sees it, with no scrolling by the test: once the page has settled, and
    // again a second later, after the demos and figures around the target are drawn)
    const IDS = ["s2-rnn", "s4-bptt", "eq-direct-path", "s6-measuring", "s7-sampling"];
    const settled = (page) => page.evaluate(async () => {
      await document.fonts.ready;
      for (let i = 0; i < 3; i++) await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 100)));
    });
    // (a section's own box can reach above its heading, margins collapsing through it: the heading is what a reader sees)
    const where = (page, id) => page.evaluate((id) => {
      const target = document.getElementById(id);
      const seen = target.matches("section") ? target.querySelector(":scope > :is(h1, h2, h3, h4)") : target;
      const header = document.querySelector("#quarto-header");
      return [seen.getBoundingClientRect().top, Math.max(0, header.getBoundingClientRect().bottom), header.offsetHeight];
    }, id);
    const lands = async (page, id, how, screen) => {
      await settled(page);
      // below the navbar where it shows, and within 150 px of where it ends when it does (headroom
      // hides it after a jump down the page; Quarto then scrolls back by its height)
      const [top, navbar, navbarHeight] = await where(page, id);
      assert.ok(top > navbar - 5 && top < navbarHeight + 150,
        `#${id} (${how}) lands ${Math.round(top)} px from the top of the screen, below a navbar ${Math.round(navbar)} px tall, at ${screen.width} px`);
      await page.waitForTimeout(1000);
      const [later] = await where(page, id);
      assert.ok(Math.abs(later - top) < 3, `#${id} (${how}) moves from ${Math.round(top)} to ${Math.round(later)} px once the text around it is drawn, at ${screen.width} px`);
    };
    for (const screen of SCREENS) {
      const {context, page, problems} = await offlinePage(browser, site.origin, {width: screen.width, height: screen.height});
      try {
        // an address with the place (a search result, a cross-reference from another page)
        for (const id of IDS) {
          await page.goto("about:blank");   // (a new load each time, not a jump within the page)
          await page.goto(`${site.origin}/${MODULE_PAGE}#${id}`, {waitUntil: "load"});
          await lands(page, id, "the address", screen);
        }
        // a link in the page (the table of contents, a cross-reference), followed from its top (the
        // page at the address the site's links use, its folder, so that following one is a jump)
        await page.goto(`${site.origin}/${MODULE_PAGE.replace(/index\.html$/, "")}`, {waitUntil: "load"});
        await settled(page);
        for (const id of IDS) {
          await page.evaluate(() => scrollTo(0, 0));
          const followed = await page.evaluate((id) => {
            const link = document.querySelector(`main a[href$="#${id}"], nav a[href$="#${id}"]`);
            if (link) setTimeout(() => link.click());
            return Boolean(link);
          }, id);
          assert.ok(followed, `no link to #${id} in the page`);
          await lands(page, id, "a link in the page", screen);
        }
        // a reload where the reader was: the browser puts the page back at the same place
        await page.goto(`${site.origin}/${MODULE_PAGE}`, {waitUntil: "load"});
        await page.evaluate(() => document.getElementById("s5-lstm").scrollIntoView());
        await settled(page);
        const [before] = await where(page, "s5-lstm");
        await page.reload({waitUntil: "load"});
        await settled(page);
        const [after] = await where(page, "s5-lstm");
        assert.ok(Math.abs(after - before) < 3, `after a reload #s5-lstm is at ${Math.round(after)} px, before it at ${Math.round(before)} px, at ${screen.width} px`);
        // and as a reader gets there: down the page with the mouse wheel, past demos drawn on the
        // way, then a reload: the text on the screen is the same, where it was
        await page.goto(`${site.origin}/${MODULE_PAGE}`, {waitUntil: "load"});
        await settled(page);
        for (let i = 0; i < 25; i++) { await page.mouse.wheel(0, 600); await page.waitForTimeout(60); }
        await settled(page);
        const firstProse = () => page.evaluate(() => {
          const prose = [...document.querySelectorAll("main section > :is(p, h2, h3)")];
          const i = prose.findIndex((e) => e.getBoundingClientRect().top > 0);
          return [i, prose[i].textContent.slice(0, 40), prose[i].getBoundingClientRect().top];
        });
        const [index, text, before3] = await firstProse();
        await page.reload({waitUntil: "load"});
        await settled(page);
        const [index3, text3, after3] = await firstProse();
        assert.ok(index3 === index && Math.abs(after3 - before3) < 3, `after scrolling down and a reload the first text on the screen is "${text3}" at ${Math.round(after3)} px, before it "${text}" at ${Math.round(before3)} px, at ${screen.width} px`);
        // (a request the test cut off by leaving the page is no failure)
        assert.deepEqual([...problems.console, ...problems.pageErrors, ...problems.failed.filter((f) => !f.endsWith("(net::ERR_ABORTED)"))], []);
      } finally {
        await context.close();
      }
    }
  });

  await t.test("the module page: on a phone each diagram keeps a readable width and scrolls sideways in its own box", async () => {
    // (site.css, by the .diagram mark the page gives each figure drawn by code; its labels are
    // checked at that width by tests/js/figure-labels.test.mjs)
    const drawn = M.diagrams().map((f) => f.split(sep).pop());
    const {context, page, problems} = await openPage(browser, site.origin, MODULE_PAGE, SCREENS[1]);
    try {
      const diagrams = await page.evaluate(async () => {
        const min = parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--diagram-min-width"));
        const out = [];
        for (const img of document.querySelectorAll(".quarto-figure img")) {
          img.scrollIntoView();
          await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
          const box = img.parentElement;
          out.push({file: img.getAttribute("src").split("/").pop(), min, width: img.getBoundingClientRect().width,
            scrolls: box.scrollWidth > box.clientWidth && getComputedStyle(box).overflowX === "auto",
            told: getComputedStyle(img.closest("figure").querySelector("figcaption"), "::before").content});
        }
        return out;
      });
      for (const file of drawn) {
        const d = diagrams.find((x) => x.file === file);
        assert.ok(d, `${file}: not a figure of the page (${diagrams.map((x) => x.file).join(", ")})`);
        assert.ok(d.width >= d.min - 1 && d.scrolls, `${file} at ${SCREENS[1].width} px: ${Math.round(d.width)} px wide (at least ${d.min}), scrolls sideways: ${d.scrolls}`);
        assert.match(d.told, /Scroll the diagram sideways/, `${file}: its caption says it scrolls`);
      }
      // a measured plot is not a diagram: it fits the screen
      const phone = SCREENS[1].width;
      for (const d of diagrams.filter((x) => !drawn.includes(x.file))) assert.ok(d.width <= phone && !d.scrolls, `${d.file} at ${phone} px: ${Math.round(d.width)} px wide`);
      assert.deepEqual([...problems.console, ...problems.pageErrors, ...problems.failed], []);
    } finally {
      await context.close();
    }
  });

  await t.test("the module page: a cross-reference shows its preview when pointed at and when focused", async () => {
    // (the previews are built on first use: tippy_on_first_hover in the post-render)
    const {context, page, problems} = await openPage(browser, site.origin, MODULE_PAGE, SCREENS[0]);
    try {
      const preview = page.locator(".tippy-box");
      const xrefs = page.locator('a.quarto-xref[href*="#eq-"]');
      await xrefs.first().scrollIntoViewIfNeeded();
      await xrefs.first().hover();
      await preview.first().waitFor({state: "visible", timeout: 5_000});
      assert.ok(await preview.locator("math").count() > 0, "the preview shows the equation");
      await page.mouse.move(1, 1);
      await preview.first().waitFor({state: "detached", timeout: 5_000});
      await xrefs.nth(1).focus();     // as a keyboard reader reaches it
      await preview.first().waitFor({state: "visible", timeout: 5_000});
      assert.deepEqual([...problems.console, ...problems.pageErrors, ...problems.failed], []);
    } finally {
      await context.close();
    }
  });

  await t.test("the module page: its icon fonts asked for before the body begins, a heading's link icon on hover", async () => {
    // (asked for in the head, so that no font arrives once the page is long: icon_fonts_early in
    // the post-render; AnchorJS finds its style there and adds no second one)
    const {context, page, problems, requests} = await offlinePage(browser, site.origin, {width: 1280, height: 720});
    try {
      // the icon fonts' state as the body begins: asked for already, while the page is short
      await page.addInitScript(() => {
        const seen = () => [...document.fonts].filter((f) => /icons/.test(f.family))
          .map((f) => `${f.family.replace(/"/g, "")}: ${f.status === "unloaded" ? "not asked for" : "asked for"}`).sort();
        new MutationObserver((_, observer) => {
          if (document.body) { window.iconFontsAtBody = seen(); observer.disconnect(); }
        }).observe(document, {childList: true, subtree: true});
      });
      await page.goto(`${site.origin}/${MODULE_PAGE}`, {waitUntil: "load"});
      await ready(page, requests);
      assert.deepEqual(await page.evaluate(() => window.iconFontsAtBody), ["anchorjs-icons: asked for", "bootstrap-icons: asked for"]);
      assert.equal(await page.locator("style.anchorjs").count(), 1, "AnchorJS's style once");
      // each heading's link icon written into the page as AnchorJS makes it, and not added again
      // by AnchorJS: one per heading, its last child (static_heading_anchors in the post-render)
      const icons = await page.evaluate(() => [...document.querySelectorAll(".anchored")].map((e) =>
        [e.id || e.dataset.anchorId, e.querySelectorAll(":scope > .anchorjs-link").length, e.lastChild.classList?.contains("anchorjs-link") ?? false,
          e.lastChild.hash]));
      assert.ok(icons.length > 20, `only ${icons.length} headings of class anchored`);
      for (const [id, count, last, href] of icons) assert.deepEqual([count, last, href], [1, true, `#${id}`], `#${id}: its link icon`);
      // and the same markup AnchorJS itself makes, on the page served without them
      const made = await offlinePage(browser, site.origin, {width: 1280, height: 720});
      try {
        await made.page.route(`**/${MODULE_PAGE}`, async (route) => {
          const response = await route.fetch();
          route.fulfill({response, body: (await response.text()).replace(/<a class="anchorjs-link [^>]*><\/a>/g, "")});
        });
        await made.page.goto(`${site.origin}/${MODULE_PAGE}`, {waitUntil: "load"});
        await made.page.waitForFunction(() => document.querySelectorAll(".anchorjs-link").length > 20, null, {timeout: 10_000});
        const links = () => [...document.querySelectorAll(".anchorjs-link")].map((a) => a.outerHTML);
        assert.deepEqual(await page.evaluate(links), await made.page.evaluate(links));
      } finally {
        await made.context.close();
      }
      const heading = page.locator("h2.anchored").nth(2);
      await heading.scrollIntoViewIfNeeded();
      await heading.hover();
      const link = heading.locator(".anchorjs-link");
      await page.waitForFunction((el) => getComputedStyle(el).opacity === "1", await link.elementHandle(), {timeout: 5_000});
      assert.equal(await link.evaluate((a) => getComputedStyle(a).fontFamily), "anchorjs-icons");
      assert.deepEqual([...problems.console, ...problems.pageErrors, ...problems.failed], []);
    } finally {
      await context.close();
    }
  });

  await t.test("the module page: Quarto's set-up at DOMContentLoaded runs after the event, not in one long task, and all of it runs", async () => {
    // (dom_ready_in_turns in the post-render; its listeners come from the head's deferred
    // scripts, which run once document.readyState is already "interactive", and from the body; the
    // search's set-up waits for the reader: search_on_first_use, tested below)
    const {context, page, problems, requests} = await offlinePage(browser, site.origin, {width: 1280, height: 720});
    try {
      await page.addInitScript(() => {
        // (the headings' link icons are in the page from the start: static_heading_anchors; the
        // body's script still hands AnchorJS the headings, which it finds done)
        let AnchorJS;
        Object.defineProperty(window, "AnchorJS", {configurable: true, set: (v) => { AnchorJS = v; }, get: () => AnchorJS && function (...args) {
          const anchors = new AnchorJS(...args), add = anchors.add;
          anchors.add = function (...what) { window.anchorsAdded = true; return add.apply(this, what); };
          return anchors;
        }});
        window.setUpSoFar = () => ({
          "the navbar's handlers (quarto-nav.js)": typeof window.quartoToggleHeadroom === "function",
          "the body's script (its AnchorJS call)": window.anchorsAdded === true,
        });
        // a window listener runs last, as the event bubbles up from the document's own listeners
        window.addEventListener("DOMContentLoaded", () => { window.setUpAtTheEvent = window.setUpSoFar(); });
      });
      await page.goto(`${site.origin}/${MODULE_PAGE}`, {waitUntil: "load"});
      await ready(page, requests);
      const [atTheEvent, atReady] = await page.evaluate(() => [window.setUpAtTheEvent, window.setUpSoFar()]);
      for (const [part, done] of Object.entries(atTheEvent)) assert.equal(done, false, `${part}: set up inside the DOMContentLoaded event`);
      for (const [part, done] of Object.entries(atReady)) assert.equal(done, true, `${part}: never set up`);
      assert.deepEqual([...problems.console, ...problems.pageErrors, ...problems.failed], []);
    } finally {
      await context.close();
    }
  });

  await t.test("the module page: text first, no demo script at load; bytes loaded", async () => {
    const {context, page, requests} = await offlinePage(browser, site.origin, {width: 1280, height: 720});
    try {
      await page.goto(`${site.origin}/${MODULE_PAGE}`, {waitUntil: "load"});
      await requests.quiet();
      const {fcp, scripts} = await page.evaluate(() => ({
        fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime,
        scripts: performance.getEntriesByType("resource").map((e) => e.name).filter((n) => /quarto-ojs-runtime|observable-libs|-demo\.js|measured-gradient/.test(n)),
      }));
      // (the equations are typeset at render time: no MathJax in the page)
      assert.equal(await page.evaluate(() => !!window.MathJax), false, "MathJax loaded by the module page");
      // the formulas are MathML the browser draws, in the math font the page asks for in its head
      // (the math-font pass): every one drawn with a box, none in another font
      const math = await page.evaluate(async () => {
        await document.fonts.ready;
        const formulas = [...document.querySelectorAll("main math")];
        return {
          count: formulas.length,
          // (those in a collapsed callout are not drawn until it opens)
          empty: formulas.filter((m) => m.checkVisibility() && !(m.getBoundingClientRect().width > 0 && m.getBoundingClientRect().height > 0)).length,
          fonts: [...new Set(formulas.map((m) => getComputedStyle(m).fontFamily.split(",")[0]))],
          loaded: [...document.fonts].some((f) => f.family.replace(/"/g, "") === "Course Math" && f.status === "loaded"),
          mathjax: document.querySelectorAll("mjx-container, svg#MJX-glyphs").length,
          // each aligned block (TeX's aligned: right | left columns) lined up: the first column's
          // cells end at one x and the second's start at one x (Chromium aligns a cell only by
          // the -webkit- text-align values that _extensions/course/post-render/native-mathml.mjs writes)
          aligned: [...document.querySelectorAll("main mtable")].filter((t) => t.checkVisibility()).map((table) => {
            const rows = [...table.children].filter((r) => r.tagName === "mtr");
            const spread = (xs) => Math.round(Math.max(...xs) - Math.min(...xs));
            // (each cell starts with its strut, an <mspace>)
            return [spread(rows.map((r) => r.children[0].lastElementChild.getBoundingClientRect().right)),
              spread(rows.map((r) => r.children[1].children[1].getBoundingClientRect().left))];
          }),
        };
      });
      assert.ok(math.count > 100, `${math.count} formulas on the module page`);
      assert.ok(math.aligned.length >= 2, "the module page's aligned blocks (the LSTM, the direct path)");
      assert.deepEqual(math.aligned, math.aligned.map(() => [0, 0]), "px between the cells' ends in the first column, starts in the second");
      assert.deepEqual([math.empty, math.fonts, math.loaded, math.mathjax], [0, ['"Course Math"'], true, 0],
        "every formula drawn, in the math font, which loaded; no MathJax markup left");
      assert.deepEqual(scripts, [], "demo scripts loaded before a demo nears the screen or the reader scrolls");
      // bytes as sent (gzip, as GitHub Pages serves text; tests/js/browser.mjs does the same) and unpacked
      const [sent, unpacked] = await page.evaluate(() => performance.getEntriesByType("navigation")
        .concat(performance.getEntriesByType("resource"))
        .reduce(([s, u], e) => [s + (e.encodedBodySize || 0), u + (e.decodedBodySize || 0)], [0, 0]));
      report.module_page = {first_paint_ms: Math.round(fcp), bytes_sent: sent, bytes_unpacked: unpacked};
      t.diagnostic(`module page: first paint after ${Math.round(fcp)} ms; ` +
        `${(sent / 1e6).toFixed(2)} MB sent (${(unpacked / 1e6).toFixed(2)} MB unpacked) at load`);
      // a budget just above the page's own bytes, so that losing any one of the passes that cut them
      // (purge-css, search-on-first-use, icon-font) puts the page over it (its bytes: report-module-page.json)
      assert.ok(sent <= BYTES_BUDGET, `the module page loads ${(sent / 1e3).toFixed(0)} kB at load, over its budget of ${BYTES_BUDGET / 1e3} kB`);
    } finally {
      await context.close();
    }
  });

  await t.test("the module page: a demo draws when scrolled to, and one in a collapsed callout when it opens", async () => {
    const {context, page, problems} = await offlinePage(browser, site.origin, {width: 1280, height: 720});
    try {
      await page.goto(`${site.origin}/${MODULE_PAGE}`, {waitUntil: "load"});
      const drawn = (sel) => page.evaluate((sel) => !!document.querySelector(sel).querySelector('svg[class^="plot"]'), sel);
      assert.equal(await drawn(".gradient-demo"), false, "drawn before it was near the screen");
      await page.locator(".gradient-demo").scrollIntoViewIfNeeded();
      await page.waitForSelector('.gradient-demo svg[class^="plot"]', {timeout: 30_000});
      // a callout far from the screen: nothing drawn in it until it opens
      const box = ".sampling-demo";
      assert.equal(await drawn(box), false, `${box} drawn while far from the screen`);
      const header = page.locator(".callout", {has: page.locator(box)}).locator('.callout-header[data-bs-toggle="collapse"]');
      await header.evaluate((h) => h.scrollIntoView({block: "start", behavior: "instant"}));
      await header.click();
      await page.waitForSelector(`${box} svg[class^="plot"]`, {timeout: 30_000});
      assert.deepEqual([...problems.console, ...problems.pageErrors, ...problems.failed], []);
    } finally {
      await context.close();
    }
  });

  t.diagnostic(`report in ${writeReport("module-page", report)}`);
});
