#!/usr/bin/env node
// Handouts for printing and for reading offline, made from the rendered site with Chromium (`make handouts`):
//
//   node scripts/pages/handouts.mjs            # from _site/ (render it first: `make site` or `quarto render`)
//   node scripts/pages/handouts.mjs DIR        # from another rendered site
//
// Writes, for each module, beside its page in the site (so the Site workflow publishes them with it):
//   modules/<id>/<id>.pdf           the module page, A4: every callout open (the
//        answers and the After-the-Lab boxes), each demo drawn as the static figure of its default
//        settings, equations typeset with their numbers, cross-references as text, page numbers
//        ("page N of M") in the footer, the site's version and the data's provenance at the end;
//   modules/<id>/slides.pdf         the deck, one slide per page (reveal.js's ?print-pdf);
//   modules/<id>/slides-notes.pdf   the deck with each slide's speaker notes on the
//        page after it (reveal.js's showNotes=separate-page): two pages per slide.
// and then links them from the module page (under "Present") and from the deck's title slide: the
// links exist only where the PDFs do.  Run again on the same _site/, it replaces the PDFs and
// leaves one set of links.
//
// Chromium: $CHROMIUM, else Debian's /usr/bin/chromium (scripts/setup.sh installs it), driven by
// playwright-core; every request outside the local server is refused (the site is self-contained).
// Exit status: 0 written; 1 a page did not get ready (a demo left blank, a formula untypeset) or the
// site is not rendered; 2 no Chromium.
import {createServer} from "node:http";
import {existsSync, readdirSync, readFileSync, statSync, writeFileSync} from "node:fs";
import {readFile} from "node:fs/promises";
import {extname, join, normalize, resolve, dirname} from "node:path";
import {fileURLToPath} from "node:url";
import {watchRequests} from "../network_quiet.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The handouts of module `id`: its page and deck in the site, and the PDF names written beside them. */
export const handoutsOf = (id) => ({page: `modules/${id}/index.html`, deck: `modules/${id}/slides.html`,
  outputs: {page: `${id}.pdf`, slides: "slides.pdf", notes: "slides-notes.pdf"}});
/** The modules of a rendered site: folders modules/<id>/ with a page and a deck. */
export const modulesIn = (site) => (existsSync(join(site, "modules")) ? readdirSync(join(site, "modules"), {withFileTypes: true})
  .filter((e) => e.isDirectory() && existsSync(join(site, "modules", e.name, "index.html")) && existsSync(join(site, "modules", e.name, "slides.html")))
  .map((e) => e.name).sort() : []);
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"];
const TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript",
  ".css": "text/css", ".svg": "image/svg+xml", ".json": "application/json", ".woff": "font/woff",
  ".woff2": "font/woff2", ".png": "image/png", ".ipynb": "application/json", ".pdf": "application/pdf"};

// A4 with 14 mm margins, laid out as on a 900 px wide screen (then scaled to the paper): the page's
// large projector type prints at a reading size and the phone layout (below 768 px) is not used.
const PAGE_PDF = {format: "A4", scale: 0.72, printBackground: true, margin: {top: "16mm", bottom: "16mm", left: "14mm", right: "14mm"},
  displayHeaderFooter: true,
  headerTemplate: '<div style="font-size:7pt;width:100%;padding:0 14mm;color:#555;"><span class="title"></span></div>',
  footerTemplate: '<div style="font-size:7pt;width:100%;padding:0 14mm;color:#555;text-align:right;">page <span class="pageNumber"></span> of <span class="totalPages"></span></div>'};
const LAYOUT_WIDTH = 900;

// print styles for the module page: the article alone, full width, nothing that only works on screen
const PRINT_CSS = `
@media print {
  #quarto-header, nav#TOC, #quarto-margin-sidebar, #quarto-sidebar, .quarto-search, #quarto-back-to-top,
  .code-copy-button, details.code-fold, .toc-actions, .nav-footer-center, .colab-badge, p.handouts { display: none !important; }
  body, #quarto-content, main.content { display: block !important; width: auto !important; max-width: none !important;
    margin: 0 !important; padding: 0 !important; grid-template-columns: none !important; }
  .math.display > .equation-body, .table-scroll, .math.inline.wide { overflow: visible !important; }
  .demo.handout-drawn { display: block !important; }
  .math.display, figure, .quarto-figure, .demo, table, pre { break-inside: avoid; }
  .callout { break-inside: auto; }
  h1, h2, h3, h4, .callout-header { break-after: avoid; }
  a { text-decoration: none; }
  .nav-footer { display: block !important; border-top: 1px solid #999; margin-top: 2em; padding-top: 0.5em; font-size: 0.8em; }
  .nav-footer > div { display: block !important; text-align: left !important; }
}`;

function serve(root) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    let file = normalize(join(root, path));
    if (!file.startsWith(normalize(root))) return res.writeHead(403).end();
    try {
      if (statSync(file).isDirectory()) file = join(file, "index.html");
      const bytes = await readFile(file);
      res.writeHead(200, {"content-type": TYPES[extname(file)] || "application/octet-stream"});
      res.end(bytes);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () =>
    ok({origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((done) => server.close(done))})));
}

async function localPage(browser, origin, viewport) {
  const context = await browser.newContext({viewport, colorScheme: "light", serviceWorkers: "block"});
  await context.route("**/*", (route) => (route.request().url().startsWith(origin + "/") || /^(data|blob):/.test(route.request().url())
    ? route.continue() : route.abort("internetdisconnected")));
  const page = await context.newPage();
  const requests = watchRequests(page);
  const errors = [];
  page.on("pageerror", (err) => errors.push(String(err)));
  return {context, page, errors, requests};
}

// every demo's cell has the class demo (its partial's `//| classes: demo <name>`); a test holds every
// page to it (tests/js/site-pages.test.mjs)
const DEMOS = "div.cell.demo";
// a demo has drawn when its box holds a chart with marks, or shows an OJS error
const DONE = "svg path, svg rect, svg circle, canvas, .observablehq--error";
/** Every demo drawn or showing an OJS error; returns the class names of those that show an error.
 * Throws, naming each demo still blank and what it shows, if one has not drawn within the time
 * allowed (a loaded machine draws a deck's demos slowly). */
async function demosDrawn(page, timeout = 120_000) {
  try {
    // polled on a timer: a page that paints no frames (printing) still gets checked
    await page.waitForFunction(([sel, done]) => [...document.querySelectorAll(sel)].every((d) => d.querySelector(done)),
      [DEMOS, DONE], {timeout, polling: 250});
  } catch (err) {
    const state = await page.evaluate(([sel, done]) => ({runtime: Boolean(window._ojs?.runtime),
      blank: [...document.querySelectorAll(sel)].filter((d) => !d.querySelector(done))
        .map((d) => `${d.className} ("${d.textContent.replace(/\s+/g, " ").trim().slice(0, 80)}")`)}), [DEMOS, DONE]).catch(() => null);
    throw new Error(`demos not drawn within ${timeout / 1000} s on ${page.url()}: ${state ? `${state.blank.join("; ")}; ` +
      `OJS runtime ${state.runtime ? "started" : "never started"}` : "the page did not answer"} (${err.message.split("\n")[0]})`);
  }
  return page.evaluate((sel) => [...document.querySelectorAll(sel)].filter((d) => d.querySelector(".observablehq--error"))
    .map((d) => d.className), DEMOS);
}

export async function modulePagePdf(browser, origin, PAGE) {
  const {context, page, errors, requests} = await localPage(browser, origin, {width: LAYOUT_WIDTH, height: 1200});
  try {
    await page.goto(`${origin}/${PAGE}`, {waitUntil: "load"});
    await page.emulateMedia({media: "print", colorScheme: "light"});
    await page.addStyleTag({content: PRINT_CSS});
    // every collapsed callout open (answers, After-the-Lab boxes), as if each had been clicked
    await page.evaluate(() => {
      for (const body of document.querySelectorAll(".callout-collapse")) body.classList.add("show");
      for (const head of document.querySelectorAll(".callout-header.collapsed")) {
        head.classList.remove("collapsed");
        head.setAttribute("aria-expanded", "true");
      }
      window.dispatchEvent(new Event("resize"));       // the demos that were hidden take their width
      window.dispatchEvent(new Event("beforeprint"));  // the OJS runtime and every demo start (as in print)
    });
    const blank = await demosDrawn(page);
    if (blank.length) throw new Error(`demos not drawn on ${PAGE}: ${blank.join(", ")}`);
    // on paper a demo is its static figure: demo.css hides a .demo in print where its After-the-Lab
    // box carries the measured figure; a demo with no such figure is printed as drawn (its default
    // settings, controls showing their values), so no demo leaves a gap
    await page.evaluate(() => {
      for (const d of document.querySelectorAll(".demo"))
        if (!d.closest(".callout")?.querySelector(".quarto-figure img")) d.classList.add("handout-drawn");
    });
    await page.evaluate(() => document.fonts.ready);
    await requests.quiet();
    await page.waitForTimeout(500);                     // a redraw after the resize settles
    // an equation wider than the column is shrunk to fit it (on paper nothing can scroll)
    await page.evaluate(() => {
      for (const body of document.querySelectorAll(".math.display > .equation-body")) {
        const math = body.firstElementChild;
        if (math && body.scrollWidth > body.clientWidth + 1) math.style.zoom = String(body.clientWidth / body.scrollWidth);
      }
    });
    const closed = await page.evaluate(() => [...document.querySelectorAll(".callout-collapse")]
      .filter((b) => getComputedStyle(b).display === "none").map((b) => b.id));
    if (closed.length) throw new Error(`callouts still closed: ${closed.join(", ")}`);
    if (errors.length) throw new Error(`page errors on ${PAGE}: ${errors.join("; ")}`);
    // what the paper must show, for the tests to find in the PDF's text: each demo's readout or
    // chart label, the After-the-Lab boxes' first words, the equation numbers
    const facts = await page.evaluate((DEMOS) => {
      // up to n words of el's text that run without a formula between them (a formula's glyphs come
      // out of a PDF in another order), screen-reader-only labels left out
      const words = (el, n) => {
        if (!el) return "";
        const copy = el.cloneNode(true);
        for (const x of copy.querySelectorAll(".screen-reader-only, .visually-hidden")) x.remove();
        for (const x of copy.querySelectorAll(".math, code")) x.replaceWith("\u0000");
        const runs = copy.textContent.split("\u0000").map((r) => r.replace(/\s+/g, " ").trim().split(" ").filter(Boolean));
        return (runs.find((r) => r.length >= Math.min(n, 4)) ?? runs[0] ?? []).slice(0, n).join(" ");
      };
      const shown = (el) => getComputedStyle(el).display !== "none";
      return {
        // each demo: printed as drawn (its chart's marks, its readout's first words), or hidden with
        // the static figure of its box printed in its place (the figure's source and caption words)
        demos: [...document.querySelectorAll(DEMOS)].map((d) => {
          const figure = d.closest(".callout")?.querySelector(".quarto-figure");
          // a live demo (class demo-live: it writes only when the reader runs a model) prints as its words
          if (d.matches(".demo-live")) return {className: d.className, printed: shown(d) ? "live" : null,
            text: words(d.querySelector(".demo-readout"), 4)};
          return shown(d) ? {className: d.className, printed: "drawn", marks: d.querySelectorAll("svg path, svg rect, svg circle").length,
            text: words(d.querySelector('[class$="readout"]') ?? d.querySelector("svg text"), 4)}
            : {className: d.className, printed: figure && shown(figure) ? figure.querySelector("img")?.getAttribute("src") : null,
              text: words(figure?.querySelector("figcaption"), 6)};
        }),
        afterLab: [...document.querySelectorAll(".callout")].filter((c) => /After the Lab/.test(c.querySelector(".callout-header")?.textContent ?? ""))
          .map((c) => ({title: words(c.querySelector(".callout-title-container"), 20),
            open: getComputedStyle(c.querySelector(".callout-collapse") ?? c.querySelector(".callout-body-container")).display !== "none",
            first: words(c.querySelector(".callout-body-container p"), 6)})),
        equations: [...document.querySelectorAll(".equation-number")].map((e) => e.textContent.trim()),
      };
    }, DEMOS);
    return {pdf: await page.pdf(PAGE_PDF), facts};
  } finally {
    await context.close();
  }
}

export async function deckPdf(browser, origin, DECK, {notes = false} = {}) {
  const {context, page, errors, requests} = await localPage(browser, origin, {width: 1280, height: 720});
  try {
    await page.goto(`${origin}/${DECK}?print-pdf${notes ? "&showNotes=separate-page" : ""}`, {waitUntil: "load"});
    await page.waitForFunction(() => window.Reveal?.isReady(), null, {timeout: 60_000});
    await page.waitForSelector(".pdf-page", {state: "attached", timeout: 60_000});
    await page.waitForFunction(() => [...document.querySelectorAll(".reveal .slides .math")]
      .every((m) => m.querySelector("math")), null, {timeout: 60_000});
    const blank = await demosDrawn(page);
    if (blank.length) throw new Error(`demos not drawn in the deck: ${blank.join(", ")}`);
    await page.evaluate(() => document.fonts.ready);
    await requests.quiet();
    if (errors.length) throw new Error(`page errors in the deck: ${errors.join("; ")}`);
    // reveal.js breaks the page after every printed page, the last one too: no blank page at the end
    await page.addStyleTag({content: ".reveal .slides > :last-child { break-after: auto !important; page-break-after: auto !important; }"});
    const slides = await page.evaluate(() => Reveal.getTotalSlides());
    return {pdf: await page.pdf({width: "1280px", height: "720px", printBackground: true, preferCSSPageSize: true}), slides};
  } finally {
    await context.close();
  }
}

const LINKS_START = "<!-- handouts: scripts/pages/handouts.mjs -->";
// (an earlier block and the line breaks around it are removed before a new one goes in)
const LINKS_END = "<!-- /handouts -->";

/** `html` with one block of handout links after the element matched by `after` (an older block replaced). */
export function withLinks(html, after, block) {
  const cleaned = html.replace(new RegExp(`\\n?${LINKS_START}[\\s\\S]*?${LINKS_END}\\n?`, "g"), "");
  const m = after.exec(cleaned);
  if (!m) return null;
  const at = m.index + m[0].length;
  return cleaned.slice(0, at) + `\n${LINKS_START}${block}${LINKS_END}\n` + cleaned.slice(at);
}

function addLinks(site, {page: PAGE, deck: DECK, outputs: OUTPUTS}) {
  const pageFile = join(site, PAGE), deckFile = join(site, DECK);
  const pageLinks = `<p class="handouts">Handouts (PDF): <a href="${OUTPUTS.page}">this page</a>, ` +
    `<a href="${OUTPUTS.slides}">the slides</a> (one per page) and <a href="${OUTPUTS.notes}">the slides with their speaker notes</a>.</p>`;
  const deckLinks = `<p class="handouts" style="font-size: 0.5em;">Handouts (PDF): <a href="${OUTPUTS.slides}">these slides</a>, ` +
    `<a href="${OUTPUTS.notes}">with speaker notes</a>, <a href="${OUTPUTS.page}">the module page</a>.</p>`;
  // the module page: right after the paragraph with the "Present" link
  const page = withLinks(readFileSync(pageFile, "utf8"), /<p>[^\n]*?href="[^"]*slides\.html"[^\n]*?<\/p>/, pageLinks);
  // the deck: at the end of the title slide
  const deck = withLinks(readFileSync(deckFile, "utf8"), /<section id="title"[\s\S]*?(?=<aside class="notes">|<\/section>)/, deckLinks);
  if (page === null || deck === null) throw new Error(`could not place the handout links (${page === null ? PAGE : DECK})`);
  writeFileSync(pageFile, page);
  writeFileSync(deckFile, deck);
}

export async function makeHandouts(site, {log = console.log} = {}) {
  const ids = modulesIn(site);
  if (!ids.length)
    throw Object.assign(new Error(`${site} has no rendered module page and deck (modules/<id>/index.html, slides.html): render the site first (make site)`), {code: 1});
  if (!existsSync(CHROMIUM))
    throw Object.assign(new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (scripts/setup.sh does as root), or set $CHROMIUM`), {code: 2});
  const {chromium} = await import("playwright-core");
  const server = await serve(site);
  const browser = await chromium.launch({executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true});
  const done = {};
  try {
    for (const id of ids) {
      const h = handoutsOf(id), t0 = Date.now();
      const written = {}, facts = {};
      ({pdf: written.page, facts: facts.page} = await modulePagePdf(browser, server.origin, h.page));
      ({pdf: written.slides, slides: facts.slides} = await deckPdf(browser, server.origin, h.deck));
      ({pdf: written.notes} = await deckPdf(browser, server.origin, h.deck, {notes: true}));
      const files = {};
      for (const [key, bytes] of Object.entries(written)) {
        files[key] = join(site, "modules", id, h.outputs[key]);
        writeFileSync(files[key], bytes);
        log(`handouts: ${files[key]} (${(bytes.length / 1024).toFixed(0)} KiB)`);
      }
      addLinks(site, h);
      log(`handouts: linked from ${h.page} and ${h.deck} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
      done[id] = {files, facts};
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return done;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const site = resolve(process.argv[2] || join(ROOT, "_site"));
  makeHandouts(site).catch((err) => {
    console.error(`handouts: ${err.message}`);
    process.exit(err.code ?? 1);
  });
}
