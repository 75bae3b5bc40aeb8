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
//   draws.  Each demo fits a 1280 × 720 screen with its controls.  On the module page: equations (1)-(12), each cross-referenced; the w slider
//   redraws the plot; a collapsed callout opens; a cross-reference previews its equation on hover
//   and on focus; its icon fonts are asked for before the body; its text paints with no demo
//   script loaded, within 1.0 MB; a demo draws when scrolled to, and one in a collapsed callout
//   when it opens, each in the place kept for it (within 2 px, at both sizes).  Every page looks the
//   same (each element's box and look) with the purged stylesheets as with Quarto's whole ones, with
//   callouts open, the phone's menu open, the search open and in dark mode; a link into the module page
//   (an address, a link in it, a reload, and a reload after scrolling down) lands its target below
//   the navbar and it stays; on a phone each diagram keeps a readable width and scrolls sideways;
//   the site search lists a term's pages and opens the one chosen, its heading in view; its
//   scripts load only when a reader first reaches for it (its button or a shortcut key), and a
//   result's page marks the term.
// Screenshots of every page at both sizes go to build/site/screenshots/, the measured render and page
// times to build/site/report.json.  Skipped, with the reason, where quarto or Chromium is missing.
//   SITE_RENDERED=DIR  check DIR/_site (an earlier render) instead
import {test} from "node:test";
import assert from "node:assert/strict";
import {existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from "node:fs";
import {join, relative, sep} from "node:path";
import {ROOT, module, modules} from "./course.mjs";
import {renderedSite, RENDERS} from "./site-render.mjs";
import {serve, hasChromium, onPath, plotPaths, offlinePage, CHROMIUM, CHROMIUM_ARGS} from "./browser.mjs";

const AXE = join(ROOT, "node_modules", "axe-core", "axe.min.js");
const OUT = RENDERS;   // build/site/: screenshots/ and report.json beside the shared render
const SCREENS = [{name: "projector", width: 1280, height: 720}, {name: "phone", width: 390, height: 844}];
const LITERALS = [/\{\{</, /\?@/, /@eq-/, /\?var:/, /\?ref:/];
// a demo is the cell of a .ojs partial whose options say `//| classes: demo <name>`; pageDefects
// holds every OJS cell to it (hidden, or a .demo), so that no demo goes unchecked by this selector
const DEMOS = "div.cell.demo";
const MODULE_PAGE = `${module("03-sequence-models").site}/index.html`;   // the checks of one page below

const skip = !onPath("quarto") ? "quarto is not on PATH: the rendered site cannot be built here " +
    "(tests/js/offline-demo.test.mjs checks the demo and the self-hosted libraries without it)"
  : !hasChromium() ? `no Chromium at ${CHROMIUM} (scripts/setup.sh installs it)`
  : !existsSync(AXE) ? "node_modules/axe-core is missing (npm ci)" : false;

function pagesOf(site) {
  const walk = (d) => readdirSync(d, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory() ? (["site_libs", "vendor"].includes(e.name) ? [] : walk(join(d, e.name)))
      : e.name.endsWith(".html") ? [join(d, e.name)] : []);
  return walk(site).map((f) => relative(site, f).split(sep).join("/")).sort();
}

async function openPage(browser, origin, path, screen) {
  const opened = await offlinePage(browser, origin, {width: screen.width, height: screen.height});
  const t0 = Date.now();
  await opened.page.goto(`${origin}/${path}`, {waitUntil: "load"});
  await ready(opened.page, opened.requests);
  return {...opened, readyMs: Date.now() - t0};
}

/** Each demo scrolled near until it has drawn or failed (a demo computes and draws only as it nears
    the screen or its callout does: seen() in _extensions/course/demo-setup.ojs; the OJS runtime
    itself loads at the first scroll), then the page back where it was. */
async function bringDemosNear(page) {
  await page.evaluate(async (DEMOS) => {
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    const y = window.scrollY;
    const deck = window.Reveal?.isReady?.() ? window.Reveal : null, shown = deck?.getIndices();
    for (const d of document.querySelectorAll(DEMOS)) {
      if (deck) deck.slide(...Object.values(deck.getIndices(d.closest(".slides section"))));   // a deck: its slide shown
      else (d.closest(".callout") || d).scrollIntoView({block: "center"});
      const t0 = performance.now();
      while (!d.querySelector("svg, canvas, .observablehq--error") && performance.now() - t0 < 30_000) await frame();
    }
    // back: to the link's target if the address has one (the sections drawn on the way may have
    // changed the heights above it), else to where the page was
    const target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (deck) deck.slide(shown.h, shown.v);
    else if (target) target.scrollIntoView({block: "start"}); else window.scrollTo(0, y);
    await frame();
  }, DEMOS);
}

/** Wait until the math is typeset (if the browser does it), the OJS cells have run and fonts are in. */
async function ready(page, requests) {
  await page.waitForFunction(() => !document.querySelector(".reveal") || window.Reveal?.isReady?.(), null, {timeout: 30_000});
  await page.waitForFunction(() => !window.MathJax || window.MathJax.startup?.promise, null, {timeout: 30_000});
  await page.evaluate(() => window.MathJax?.startup?.promise);
  await bringDemosNear(page);
  await page.waitForFunction((DEMOS) => [...document.querySelectorAll(DEMOS)]
    .every((d) => d.querySelector("svg, canvas") || d.querySelector(".observablehq--error")), DEMOS, {timeout: 30_000});
  await page.evaluate(() => document.fonts.ready);
  await requests.quiet();
}

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

/** Every collapsed callout opened and every demo drawn. */
async function openEverything(page, requests) {
  await page.evaluate(() => { for (const h of document.querySelectorAll('.callout-header[data-bs-toggle="collapse"]')) h.click(); });
  await page.waitForFunction(() => !document.querySelector(".collapsing"));
  await bringDemosNear(page);
  await requests.quiet();
}

/** The site search opened and asked for `term`; resolves once its results are listed. */
async function openSearch(page, term = "perplexity") {
  await page.locator("#quarto-search button").first().click();
  await page.locator(".aa-Input").fill(term);
  await page.locator(".aa-Item").first().waitFor({state: "visible", timeout: 10_000});
  // the list is complete once it stops changing (its results and their snippets come in over frames)
  await page.waitForFunction(() => {
    const now = [...document.querySelectorAll(".aa-Item")].map((i) => i.textContent).join("|") + document.querySelector(".aa-Panel")?.scrollHeight;
    const same = now === window.searchListWas;
    window.searchListWas = now;
    return same;
  }, null, {polling: 250, timeout: 10_000});
}

/** The phone's menu (the navbar's toggler) opened. */
async function openPhoneMenu(page) {
  const toggler = page.locator(".navbar-toggler");
  if (!(await toggler.isVisible())) return;
  await toggler.click();
  await page.waitForFunction(() => document.querySelector(".navbar-collapse.show") && !document.querySelector(".collapsing"));
}

/** For each element of the page (in document order): where it is and how it looks, as one string. */
function elementLooks() {
  const PROPS = ["display", "position", "visibility", "opacity", "color", "background-color", "background-image",
    "font-family", "font-size", "font-weight", "font-style", "line-height", "text-align", "text-decoration-line",
    "margin-top", "margin-right", "margin-bottom", "margin-left", "padding-top", "padding-right", "padding-bottom",
    "padding-left", "border-top-width", "border-top-style", "border-top-color", "border-bottom-width",
    "border-left-width", "border-left-color", "border-radius", "box-shadow", "overflow-x", "white-space", "z-index", "content"];
  const out = [];
  const describe = (el) => el.tagName.toLowerCase() + (el.id ? `#${el.id}` : "") + (typeof el.className === "string" && el.className ? `.${el.className.trim().split(/\s+/).join(".")}` : "");
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest("svg") && el.tagName.toLowerCase() !== "svg") continue;   // inside a figure: drawn by its own attributes
    const cs = getComputedStyle(el), r = el.getBoundingClientRect(), before = getComputedStyle(el, "::before");
    const box = [r.x, r.y, r.width, r.height].map((v) => Math.round(v * 2) / 2).join(",");
    const look = `${box} ${PROPS.map((p) => cs.getPropertyValue(p)).join("|")} ::before ${before.content}|${before.fontFamily}`;
    let where = describe(el);
    for (let p = el.parentElement; p && p !== document.body && where.length < 200; p = p.parentElement) where = `${describe(p)} > ${where}`;
    out.push({where, look});
  }
  return out;
}

test("the rendered site: every page offline, on a projector and a phone", {skip, timeout: 900_000}, async (t) => {
  const {dir, renderSeconds, reused} = await renderedSite();
  // the path of _quarto.yml's site-url: the 404 page's links are rooted there, as on GitHub Pages
  const siteUrl = /^\s*site-url:\s*(\S+)/m.exec(readFileSync(join(dir, "_quarto.yml"), "utf8"))?.[1];
  const site = await serve(join(dir, "_site"), {}, {base: siteUrl ? new URL(siteUrl).pathname : "/"});
  const {chromium} = await import("playwright-core");
  const browser = await chromium.launch({executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true});
  t.after(async () => { await browser.close(); await site.close(); });
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
    const drawn = module("03-sequence-models").diagrams().map((f) => f.split(sep).pop());
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

  await t.test("the module page: each demo draws in the place kept for it, on a projector and a phone", async () => {
    // (its place: --demo-place in demo.css; a demo in a collapsed callout, once the callout opens)
    for (const screen of SCREENS) {
      const {context, page} = await offlinePage(browser, site.origin, {width: screen.width, height: screen.height});
      try {
        await page.goto(`${site.origin}/${MODULE_PAGE}`, {waitUntil: "load"});
        const moved = [];
        for (const demo of await page.locator(".demo-standin").all()) {
          const kept = await demo.evaluate((el) => {
            el.closest(".callout")?.querySelector(".callout-collapse")?.classList.add("show");
            el.scrollIntoView({block: "center"});
            return el.getBoundingClientRect().height;
          });
          await page.mouse.wheel(0, 1);   // a reader's scroll (the OJS runtime loads at the first)
          await page.waitForFunction((el) => el.querySelector('svg[class^="plot"]'), await demo.elementHandle(), {timeout: 30_000});
          await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));   // its last outputs in
          const drawn = await demo.evaluate((el) => el.getBoundingClientRect().height);
          if (Math.abs(drawn - kept) > 2)
            moved.push(`${(await demo.getAttribute("class")).replace(/cell |demo-standin/g, "").trim()}: kept ${kept.toFixed(1)} px, drawn ${drawn.toFixed(1)} px`);
        }
        assert.deepEqual(moved, [], `demos that move the text below them at ${screen.width} px`);
      } finally {
        await context.close();
      }
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
          // the -webkit- text-align values that scripts/postrender/native-mathml.mjs writes)
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
      assert.ok(sent <= 1.0e6, `the module page loads ${(sent / 1e6).toFixed(2)} MB; the budget for a phone is 1.0 MB`);
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

  await t.test("every page looks the same with the purged stylesheets as with Quarto's whole ones", async () => {
    // (the purge-css pass: the pages link to <sheet>.used.css; here a second context is served
    // Quarto's whole sheet under that name, and every element's box and look is compared, in the
    // states a reader brings about: callouts open and demos drawn, the phone's menu open, dark mode)
    const whole = join(dir, "_site");
    const states = [
      {name: "1280 px, callouts open, demos drawn", screen: SCREENS[0], act: openEverything},
      {name: "390 px, the menu open", screen: SCREENS[1], act: openPhoneMenu},
      {name: "1280 px, dark mode", screen: SCREENS[0], dark: true, act: openEverything},
      {name: "390 px, the search open", screen: SCREENS[1], act: (page) => openSearch(page)},
    ];
    const differences = [], compared = [];
    for (const path of pages) {
      if (!readFileSync(join(whole, path), "utf8").includes(".used.")) continue;   // a deck: Bootstrap not used
      compared.push(path);
      for (const state of states) {
        const looks = [];
        for (const purged of [true, false]) {
          const {context, page, requests} = await offlinePage(browser, site.origin, {width: state.screen.width, height: state.screen.height});
          try {
            await page.emulateMedia({reducedMotion: "reduce"});
            if (state.dark) await context.addInitScript(() => localStorage.setItem("quarto-color-scheme", "alternate"));
            if (!purged) await context.route(/\.used(\.min)?\.css$/, async (route) => route.fulfill({
              response: await route.fetch({url: route.request().url().replace(/\.used(\.min)?\.css$/, "$1.css")})}));
            await page.goto(`${site.origin}/${path}`, {waitUntil: "load"});
            await ready(page, requests);
            await state.act(page, requests);
            // at the top, and the table of contents told so (its active entry, and the entries it
            // opens, follow the last scroll, in Quarto's throttled handler of the document's scroll
            // events, which a layout still settling can leave stale: so the event is sent again, to
            // the document where that handler listens, until they stay the same for two rounds)
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
            looks.push(await page.evaluate(elementLooks));
          } finally {
            await context.close();
          }
        }
        const [used, all] = looks;
        if (used.length !== all.length) differences.push(`${path}, ${state.name}: ${used.length} elements against ${all.length}`);
        else for (let i = 0; i < used.length && differences.length < 20; i++)
          if (used[i].look !== all[i].look) differences.push(`${path}, ${state.name}: ${used[i].where}\n  purged: ${used[i].look}\n  whole:  ${all[i].look}`);
      }
    }
    assert.ok(compared.includes(MODULE_PAGE) && compared.includes("index.html"), `pages linking the purged sheets: ${compared.join(", ")}`);
    assert.deepEqual(differences, [], "elements that look different with the purged stylesheets");
  });

  writeFileSync(join(OUT, "report.json"), JSON.stringify(report, null, 2) + "\n");
  t.diagnostic(`quarto render: ${renderSeconds?.toFixed(1) ?? "(not run)"} s; report and screenshots in ${relative(ROOT, OUT)}/`);
});
