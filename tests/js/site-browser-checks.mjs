// What the rendered-site suites share (site-pages, site-module-page, site-search and
// site-purged-css .test.mjs): the site as a student gets it, the shared render of this checkout
// (tests/js/site-render.mjs: a plain `quarto render` of a copy holding what a fresh clone holds),
// served on 127.0.0.1 and opened in Debian's Chromium with every other request blocked (a classroom
// with no Wi-Fi), at 1280 × 720 (a projector) and 390 × 844 (a phone); how a page is opened and
// made ready, the states a reader brings about (callouts open, the phone's menu, the search), each
// element's box and look, and where the suites' screenshots and reports go (build/site/).  Each
// suite renders (or reuses the render), serves the site and launches its own Chromium, so that
// node's test runner can run them side by side (--test-concurrency).
import {mkdirSync, readdirSync, readFileSync, writeFileSync} from "node:fs";
import {join, relative, sep} from "node:path";
import {ROOT, modules} from "./course.mjs";
import {RENDERS} from "./site-render.mjs";
import {serve, hasChromium, onPath, offlinePage, CHROMIUM, CHROMIUM_ARGS} from "./browser.mjs";

export const OUT = RENDERS;   // build/site/: screenshots/ and each suite's report-<subject>.json beside the shared render
export const SCREENS = [{name: "projector", width: 1280, height: 720}, {name: "phone", width: 390, height: 844}];
// a demo is the cell of a .ojs partial whose options say `//| classes: demo <name>`; pageDefects
// (site-pages.test.mjs) holds every OJS cell to it (hidden, or a .demo), so that no demo goes
// unchecked by this selector
export const DEMOS = "div.cell.demo";
export const MODULE_PAGE = `${modules()[0].site}/index.html`;   // the checks of one module page: the first module's

/** Why the rendered-site suites skip here, or false: quarto or Chromium missing. */
export const skip = !onPath("quarto") ? "quarto is not on PATH: the rendered site cannot be built here " +
    "(modules/03-sequence-models/tests/gradient-demo-offline.test.mjs checks the demo and the self-hosted libraries without it)"
  : !hasChromium() ? `no Chromium at ${CHROMIUM} (scripts/setup.sh installs it)` : false;

/** The rendered project `dir` (renderedSite()) served, and a Chromium of this suite's own:
    {site, browser, close}; close() ends both (call it in t.after). */
export async function openSite(dir) {
  // the path of _quarto.yml's site-url: the 404 page's links are rooted there, as on GitHub Pages
  const siteUrl = /^\s*site-url:\s*(\S+)/m.exec(readFileSync(join(dir, "_quarto.yml"), "utf8"))?.[1];
  const site = await serve(join(dir, "_site"), {}, {base: siteUrl ? new URL(siteUrl).pathname : "/"});
  try {
    const {chromium} = await import("playwright-core");
    const browser = await chromium.launch({executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true});
    return {site, browser, close: async () => { await browser.close(); await site.close(); }};
  } catch (err) {
    await site.close();
    throw err;
  }
}

/** A suite's measurements, to build/site/report-<subject>.json; returns the path, from the checkout's root. */
export function writeReport(subject, report) {
  mkdirSync(OUT, {recursive: true});
  const file = join(OUT, `report-${subject}.json`);
  writeFileSync(file, JSON.stringify(report, null, 2) + "\n");
  return relative(ROOT, file);
}

export function pagesOf(site) {
  const walk = (d) => readdirSync(d, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory() ? (["site_libs", "vendor"].includes(e.name) ? [] : walk(join(d, e.name)))
      : e.name.endsWith(".html") ? [join(d, e.name)] : []);
  return walk(site).map((f) => relative(site, f).split(sep).join("/")).sort();
}

export async function openPage(browser, origin, path, screen) {
  const opened = await offlinePage(browser, origin, {width: screen.width, height: screen.height});
  const t0 = Date.now();
  await opened.page.goto(`${origin}/${path}`, {waitUntil: "load"});
  await ready(opened.page, opened.requests);
  return {...opened, readyMs: Date.now() - t0};
}

/** Each demo scrolled near until it has drawn or failed (a demo computes and draws only as it nears
    the screen or its callout does: seen() in _extensions/course/demo-setup.ojs; the OJS runtime
    itself loads at the first scroll), then the page back where it was. */
export async function bringDemosNear(page) {
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

/** Wait until a deck is ready, the OJS cells have run and fonts are in (the formulas are MathML, typeset at render time). */
export async function ready(page, requests) {
  await page.waitForFunction(() => !document.querySelector(".reveal") || window.Reveal?.isReady?.(), null, {timeout: 30_000});
  await bringDemosNear(page);
  await page.waitForFunction((DEMOS) => [...document.querySelectorAll(DEMOS)]
    .every((d) => d.querySelector("svg, canvas") || d.querySelector(".observablehq--error")), DEMOS, {timeout: 30_000});
  await page.evaluate(() => document.fonts.ready);
  await requests.quiet();
}

/** Every collapsed callout opened and every demo drawn. */
export async function openEverything(page, requests) {
  await page.evaluate(() => { for (const h of document.querySelectorAll('.callout-header[data-bs-toggle="collapse"]')) h.click(); });
  await page.waitForFunction(() => !document.querySelector(".collapsing"));
  await bringDemosNear(page);
  await requests.quiet();
}

/** The site search opened and asked for `term`; resolves once its results are listed. */
export async function openSearch(page, term = "perplexity") {
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
export async function openPhoneMenu(page) {
  const toggler = page.locator(".navbar-toggler");
  if (!(await toggler.isVisible())) return;
  await toggler.click();
  await page.waitForFunction(() => document.querySelector(".navbar-collapse.show") && !document.querySelector(".collapsing"));
}

/** For each element of the page (in document order): where it is and how it looks, as one string. */
export function elementLooks() {
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

// the per-page rules every page is held to (site-pages.test.mjs; new-module.test.mjs holds a new module's pages to them)
export const AXE = join(ROOT, "node_modules", "axe-core", "axe.min.js");
const LITERALS = [/\{\{</, /\?@/, /@eq-/, /\?var:/, /\?ref:/];

/** What a reader would see go wrong on the open page; [] when nothing does. */
export async function pageDefects(page, screen) {
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

export async function axeViolations(page) {
  await page.addScriptTag({content: readFileSync(AXE, "utf8")});
  const result = await page.evaluate(() => window.axe.run(document, {resultTypes: ["violations"]}));
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help}; ${v.nodes.length} element(s), e.g. ${v.nodes[0].target.join(" ")}`);
}
