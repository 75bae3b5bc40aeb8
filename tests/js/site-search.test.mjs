// The site search as a student gets it, from the shared render of this checkout, served on
// 127.0.0.1 and opened in Debian's Chromium with every other request blocked (a classroom with no
// Wi-Fi): the site search lists a term's pages and opens the one chosen, its heading in view; its
// scripts load only when a reader first reaches for it (its button or a shortcut key), and a
// result's page marks the term.  Skipped, with the reason, where quarto or Chromium is missing.
//   SITE_RENDERED=DIR  check DIR/_site (an earlier render) instead
import {test} from "node:test";
import assert from "node:assert/strict";
import {module} from "./course.mjs";
import {renderedSite} from "./site-render.mjs";
import {offlinePage} from "./browser.mjs";
import {SCREENS, MODULE_PAGE, skip, openSite, ready, openSearch} from "./site-browser-checks.mjs";

test("the rendered site: the search, on a projector and a phone", {skip}, async (t) => {
  const {dir} = await renderedSite();
  const {site, browser, close} = await openSite(dir);
  t.after(close);

  await t.test("the site search lists a term's pages and opens the one chosen, on a projector and a phone", async () => {
    // (Quarto's search sets itself up at DOMContentLoaded, in a task of its own: dom_ready_in_turns
    // in the post-render; its dropdown's classes are kept by the purge-css pass)
    for (const screen of SCREENS) {
      const {context, page, problems, requests} = await offlinePage(browser, site.origin, {width: screen.width, height: screen.height});
      try {
        await page.goto(`${site.origin}/index.html`, {waitUntil: "load"});
        await ready(page, requests);
        await openSearch(page, "perplexity");
        const items = await page.locator(".aa-Item").allTextContents();
        assert.ok(items.some((text) => /perplexity/i.test(text)), `no result names perplexity: ${items.join(" | ")}`);
        const glossary = page.locator(".aa-Item", {hasText: "exponential of the mean"}).first();
        await glossary.click();
        await page.waitForURL(/glossary\.html.*#perplexity$/, {timeout: 10_000});
        // its heading in view, below the navbar
        await page.waitForFunction(() => {
          const r = document.querySelector("#perplexity > :is(h2, h3, h4)")?.getBoundingClientRect();
          return r && r.top >= document.querySelector("#quarto-header").getBoundingClientRect().bottom && r.bottom < innerHeight / 2;
        }, null, {timeout: 10_000});
        assert.deepEqual([...problems.console, ...problems.pageErrors, ...problems.failed], []);
      } finally {
        await context.close();
      }
    }
  });

  await t.test("the search loads when a reader first reaches for it: none of it with the page, a shortcut key opens it, a result's page marks the term", async () => {
    // (search_on_first_use in the post-render; the click on its button: the test above)
    const {context, page, problems, requests} = await offlinePage(browser, site.origin, {width: 1280, height: 720});
    try {
      const asked = [];
      page.on("request", (r) => { if (/\/quarto-search\//.test(r.url())) asked.push(r.url().replace(/.*\//, "")); });
      await page.goto(`${site.origin}/${MODULE_PAGE}`, {waitUntil: "load"});
      await ready(page, requests);
      assert.deepEqual(asked, [], "the search's scripts loaded with the page");
      await page.keyboard.press("/");
      await page.locator(".aa-Input").waitFor({state: "visible", timeout: 10_000});
      await page.waitForFunction(() => document.activeElement?.classList.contains("aa-Input"), null, {timeout: 5_000});
      assert.deepEqual(asked, ["autocomplete.umd.js", "fuse.min.js", "quarto-search.js"]);
      await page.keyboard.press("Escape");
      assert.equal(await page.locator("#quarto-search .search-standin").count(), 0, "the stand-in button is still there");
      assert.equal(await page.locator("#quarto-search .aa-DetachedSearchButton").count(), 1, "not one search button");

      // a keyboard reader reaching the button: the focus stays on it as the search loads, and Enter opens it
      await page.reload({waitUntil: "load"});
      await ready(page, requests);
      await page.locator("#quarto-search .search-standin button").focus();
      await page.locator("#quarto-search .search-standin").waitFor({state: "detached", timeout: 10_000});
      await page.waitForFunction(() => document.activeElement?.matches("#quarto-search .aa-DetachedSearchButton"), null, {timeout: 5_000});
      await page.keyboard.press("Enter");
      await page.locator(".aa-Input").waitFor({state: "visible", timeout: 10_000});
      await page.keyboard.press("Escape");

      // a page reached from a search result: the term marked in its text, and in no link's address
      await page.goto(`${site.origin}/${module("03-sequence-models").site}/glossary.html?q=perplexity#perplexity`, {waitUntil: "load"});
      await ready(page, requests);
      await page.waitForFunction(() => document.querySelectorAll("main mark").length > 0, null, {timeout: 10_000});
      const carry = await page.evaluate(() => [location.search, ...[...document.querySelectorAll("a[href]")]
        .map((a) => a.href).filter((href) => /[?&]q=/.test(href))]);
      assert.deepEqual(carry, [""], "the term left in the address or a link");
      assert.deepEqual([...problems.console, ...problems.pageErrors, ...problems.failed], []);
    } finally {
      await context.close();
    }
  });
});
