// Module 3's briefing deck (modules/<id>/slides.qmd), from the tests' one render of the site
// (site-render.mjs), checked in Debian's Chromium with every request off the site blocked:
//   - it follows the agenda of the specification (../shared/spec/module-<id>.txt):
//     the six sections in order, each slide labelled with its section's minutes, the minutes in the
//     speaker notes adding up to each section's share, the demo and the checks where the agenda
//     puts them;
//   - every slide has speaker notes, and the speaker view (S) opens and shows them;
//   - no slide overflows at 1280 x 720 or at 1920 x 1080, and no text is below the base size;
//   - the demo's slider redraws its plot inside the deck, from the keyboard too;
//   - the deck prints (?print-pdf) to one PDF page per slide;
//   - no console error, no failed request, no request off the site.
// Skipped (with the reason) where `quarto` or Chromium is missing.
//   SITE_RENDERED=DIR check DIR/_site (an earlier render) instead of the shared render
//   SCREENSHOT_DIR=d  save a screenshot of every slide at 1280 x 720 there
import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync, writeFileSync, existsSync, mkdirSync} from "node:fs";
import {join} from "node:path";
import {ROOT, thisModule} from "../../../tests/js/course.mjs";
import {renderedSite} from "../../../tests/js/site-render.mjs";
import {serve, openOffline, hasChromium, onPath, plotPaths, CHROMIUM} from "../../../tests/js/browser.mjs";

const M = thisModule(import.meta.url);
const DECK = `/${M.site}/slides.html`;
const SPEC = join(ROOT, "..", "shared", "spec", `module-${M.id}.txt`);
const SIZES = [[1280, 720], [1920, 1080]];
const skip = !onPath("quarto") ? "quarto is not installed: the deck cannot be rendered here"
  : !hasChromium() ? `no Chromium at ${CHROMIUM} (scripts/setup.sh installs it when quarto is present)` : false;

/** The agenda of the specification: [{start, end, title, activity, activityMinutes}] for sections 1-6. */
export function specAgenda(text) {
  const rows = [];
  for (const line of text.split("\n")) {
    const m = /^(\d+)–(\d+)\t(\d\. [^\t]+)\t(.+)$/.exec(line.trim());
    if (!m) continue;
    const act = /^(.+?) \((\d+) min\)$/.exec(m[4].trim());
    rows.push({start: +m[1], end: +m[2], title: m[3].trim(), activity: act ? act[1] : null, activityMinutes: act ? +act[2] : 0});
  }
  return rows;
}

/** Open the deck and wait until reveal.js, its formulas (MathML) and the demo are ready. */
async function openDeck(page, origin, query = "") {
  await page.goto(origin + DECK + query, {waitUntil: "load"});
  await page.waitForFunction(() => window.Reveal?.isReady(), null, {timeout: 60_000});
  await page.waitForFunction(() => {
    const math = [...document.querySelectorAll(".reveal .slides .math")];
    return math.length > 0 && math.every((m) => m.querySelector("math"));
  }, null, {timeout: 60_000});
  // the demo draws when its slide (or one beside it) is shown, or at once in the handout
  if (!query.includes("print-pdf")) {
    await page.evaluate(() => Reveal.slide(Reveal.getSlides().findIndex((s) => s.querySelector(".gradient-demo"))));
  }
  await page.waitForSelector('.gradient-demo svg[class^="plot"] path', {state: "attached", timeout: 60_000});
  if (!query.includes("print-pdf")) await page.evaluate(() => Reveal.slide(0));
}

/** Every slide in order: its id, heading, room clock, notes, and what it holds. */
function slideFacts(page) {
  return page.evaluate(() => Reveal.getSlides().map((s) => ({
    id: s.id,
    heading: s.querySelector("h1, h2")?.textContent.trim() ?? "",
    clock: s.querySelector(".room-clock")?.textContent.trim() ?? null,
    notes: s.querySelector("aside.notes")?.textContent.trim() ?? "",
    demo: !!s.querySelector(".gradient-demo"),
    answer: !!s.querySelector(".fragment"),
  })));
}

/** The minutes a slide's notes give it: they start with "N min." */
function notesMinutes(notes) {
  const m = /^(\d+(?:\.\d+)?) min\b/.exec(notes);
  return m ? Number(m[1]) : null;
}

/**
 * Show slide i with all its fragments and measure it in slide coordinates: how far its content
 * reaches below and right of the slide, every element box that sticks out of the slide, and every
 * HTML text smaller than the base size (a formula's MathML and the plot's SVG text are not HTML
 * text), and every equation that would have to scroll sideways to be read (its box clips it).
 */
function measureSlide(page, i) {
  return page.evaluate((index) => {
    const slide = Reveal.getSlides()[index];
    Reveal.slide(...Object.values(Reveal.getIndices(slide)));
    slide.querySelectorAll(".fragment").forEach((f) => f.classList.add("visible"));
    Reveal.layout();
    const {width, height} = Reveal.getConfig();
    const box = document.querySelector(".reveal .slides").getBoundingClientRect();
    const scale = box.width / width;
    const base = parseFloat(getComputedStyle(document.querySelector(".reveal .slides section")).fontSize);
    // every visible box: how far it sticks out of the slide, and how low the content reaches
    // (the inside of an element that clips its overflow is not visible, so it is not measured)
    const out = [];
    let contentBottom = 0;
    const visit = (el) => {
      if (el.matches("aside.notes")) return;
      const r = el.getBoundingClientRect();
      if (r.width > 0 || r.height > 0) {
        const over = Math.max(r.bottom - box.bottom, r.right - box.right, box.top - r.top, box.left - r.left) / scale;
        if (over > 1) out.push(`${el.tagName.toLowerCase()}.${[...el.classList].join(".")} by ${over.toFixed(0)}px`);
        contentBottom = Math.max(contentBottom, (r.bottom - box.top) / scale);
      }
      const style = getComputedStyle(el);
      if ([style.overflowX, style.overflowY].every((o) => o === "visible")) [...el.children].forEach(visit);
    };
    [...slide.children].forEach(visit);
    for (const body of slide.querySelectorAll(".equation-body")) {
      if (body.scrollWidth > body.clientWidth + 1) out.push(`${body.parentElement.parentElement.id || "an equation"} scrolls: ${body.scrollWidth} of ${body.clientWidth}px shown`);
    }
    const small = [];
    for (const el of slide.querySelectorAll("p, li, td, th, figcaption, h1, h2, label, output, input, .room-clock, .gradient-demo-readout")) {
      if (el.closest("aside.notes, math, svg") || !el.textContent.trim() && el.tagName !== "INPUT") continue;
      const size = parseFloat(getComputedStyle(el).fontSize);
      if (size < base - 0.5) small.push(`${el.tagName.toLowerCase()} "${(el.textContent || el.value).trim().slice(0, 30)}" ${size}px`);
    }
    const measured = {
      id: slide.id, base, bottom: slide.offsetTop + slide.scrollHeight, right: slide.scrollWidth, width, height,
      content: Math.round(contentBottom),
      scrollHeight: slide.scrollHeight, outside: out, small,
    };
    return measured;
  }, i);
}

test("the briefing deck renders and works with no network", {skip}, async (t) => {
  const {site} = await renderedSite();
  const html = readFileSync(join(site, DECK), "utf8");
  assert.match(html, /Reveal\.initialize/, "slides.html is a reveal.js deck");
  assert.doesNotMatch(html, /https?:\/\/(?:cdn\.jsdelivr\.net|cdnjs\.cloudflare\.com|unpkg\.com)/, "the deck names a CDN");

  const server = await serve(site);
  const {browser, context, page, problems} = await openOffline(server.origin);
  t.after(async () => { await browser.close(); await server.close(); });
  await page.setViewportSize({width: 1280, height: 720});
  await openDeck(page, server.origin);
  const slides = await slideFacts(page);

  await t.test("sections, minutes and activities follow the specification's agenda", {skip: existsSync(SPEC) ? false : `no specification at ${SPEC}`}, () => {
    const agenda = specAgenda(readFileSync(SPEC, "utf8"));
    assert.equal(agenda.length, 6, "the spec's agenda has sections 1-6");
    const inSection = (s) => agenda.find((a) => s.clock === `${a.start}–${a.end} min · ${a.title}`);
    const sectionSlides = slides.filter(inSection);
    // the sections appear in the agenda's order, each as one run of slides headed by its title
    const order = [...new Set(sectionSlides.map((s) => inSection(s).title))];
    assert.deepEqual(order, agenda.map((a) => a.title));
    for (const a of agenda) {
      const own = slides.filter((s) => inSection(s) === a);
      assert.equal(own[0].heading, a.title, `the first slide of ${a.title} is headed by it`);
      const first = slides.indexOf(own[0]);
      assert.deepEqual(slides.slice(first, first + own.length), own, `${a.title}: its slides are consecutive`);
      const minutes = own.map((s) => notesMinutes(s.notes));
      assert.equal(minutes.reduce((x, y) => x + y, 0), a.end - a.start, `${a.title}: notes minutes ${minutes.join(" + ")}`);
      if (a.activity === "Demo") {
        const demo = own.filter((s) => s.demo);
        assert.equal(demo.length, 1, `${a.title}: one demo slide`);
        assert.equal(notesMinutes(demo[0].notes), a.activityMinutes);
        assert.match(demo[0].notes, new RegExp(`In the room: Demo \\(${a.activityMinutes} min\\)`));
      } else if (a.activity === "Check yourself") {
        const checks = own.filter((s) => /^Check yourself/.test(s.heading));
        assert.equal(checks.length, 1, `${a.title}: one in-room check`);
        assert.ok(checks[0].answer, `${a.title}: the answer is a fragment (shown on a click)`);
        assert.equal(notesMinutes(checks[0].notes), a.activityMinutes);
        assert.match(checks[0].notes, new RegExp(`In the room: Check yourself \\(${a.activityMinutes} min\\)`));
      } else {
        assert.ok(!own.some((s) => s.demo || /^Check yourself/.test(s.heading)), `${a.title}: no activity in the agenda`);
      }
    }
    // outside the sections: the title and agenda before, the closing slide after; none takes minutes
    const others = slides.filter((s) => !inSection(s));
    assert.deepEqual(others.map((s) => s.id), ["title", "agenda", "after-the-briefing"]);
    assert.ok(others.every((s) => notesMinutes(s.notes) === 0 && s.clock), "title, agenda and closing: 0 min, and a clock");
    assert.match(slides[0].heading + " " + html, /Sequence Models[\s\S]*Day 1 · Foundations · Module 3[\s\S]*13:35 briefing/);
    assert.ok(!slides.some((s) => /7\. Generating Text/.test(s.heading)), "section 7 is not in the room");
  });

  await t.test("every slide has speaker notes that start with its minutes", () => {
    const missing = slides.filter((s) => notesMinutes(s.notes) === null || s.notes.length < 40);
    assert.deepEqual(missing.map((s) => s.id), []);
  });

  await t.test("equations and figures carry the page's numbers", () => {
    const page = readFileSync(join(site, M.site, "index.html"), "utf8");
    // both typeset at render time (scripts/the typeset-math pass), each number in its equation-number box
    const tags = (text) => Object.fromEntries([...text.matchAll(/id="(eq-[\w-]+)"[^>]*>[\s\S]*?equation-number">\((\d+)\)/g)]
      .map((m) => [m[1], m[2]]));
    const inDeck = tags(html);
    assert.equal(Object.keys(inDeck).length, 11, "equations 1 to 11 are in the deck");
    for (const [id, n] of Object.entries(inDeck)) assert.equal(n, tags(page)[id], `${id}`);
    for (const [id, n] of [["fig-rnn-unrolled", 1], ["fig-lstm-cell", 2]]) {
      assert.match(html, new RegExp(`id="${id}"[\\s\\S]*?Figure(?:&nbsp;|\\s)${n}:`), id);
    }
  });

  await t.test("the formulas are MathML drawn in the math font, numbered equations with their number beside them", async () => {
    const math = await page.evaluate(async () => {
      await document.fonts.ready;
      const formulas = [...document.querySelectorAll(".reveal .slides .math")];
      return {
        count: formulas.length,
        notMathML: formulas.filter((m) => !m.querySelector(":scope > math, :scope > .equation-body > math")).length,
        fonts: [...new Set(formulas.map((m) => getComputedStyle(m.querySelector("math")).fontFamily.split(",")[0]))],
        loaded: [...document.fonts].some((f) => f.family.replace(/"/g, "") === "Course Math" && f.status === "loaded"),
        mathjax: document.querySelectorAll("mjx-container, svg#MJX-glyphs").length + (window.MathJax ? 1 : 0),
        // each numbered equation's number, in the deck's order
        numbered: [...document.querySelectorAll(".reveal .math.display.numbered")].map((d) => d.querySelector(".equation-number")?.textContent),
      };
    });
    assert.ok(math.count > 50, `${math.count} formulas in the deck`);
    assert.deepEqual([math.notMathML, math.fonts, math.loaded, math.mathjax], [0, ['"Course Math"'], true, 0],
      "every formula MathML, in the math font, which loaded; no MathJax markup or script");
    assert.deepEqual(math.numbered, Array.from({length: 11}, (_, i) => `(${i + 1})`), "equations (1) to (11), numbered in order");
    // a numbered equation on its slide: the number to the right of the formula, on its middle line
    const placed = await page.evaluate(() => {
      const eq = document.querySelector(".reveal .math.display.numbered");
      const slide = eq.closest(".slides > section, .slides > section > section");
      Reveal.slide(...Object.values(Reveal.getIndices(slide)));
      Reveal.layout();
      const body = eq.querySelector("math").getBoundingClientRect(), number = eq.querySelector(".equation-number").getBoundingClientRect();
      Reveal.slide(0);
      return {after: number.left >= body.right, middle: Math.abs((body.top + body.bottom) / 2 - (number.top + number.bottom) / 2)};
    });
    assert.ok(placed.after && placed.middle < 12, JSON.stringify(placed));
  });

  await t.test("the measuring catches an overflowing slide", async () => {
    await page.evaluate(() => Reveal.getSlides()[1].insertAdjacentHTML("beforeend", `<p id="m3-probe" style="height: 900px">probe</p>`));
    const m = await measureSlide(page, 1);
    await page.evaluate(() => document.getElementById("m3-probe").remove());
    assert.ok(m.bottom > m.height && m.outside.length > 0, JSON.stringify(m));
  });

  for (const [width, height] of SIZES) {
    await t.test(`no slide overflows at ${width} x ${height}, and no text is below the base size`, async () => {
      await page.setViewportSize({width, height});
      const rows = [];
      for (let i = 0; i < slides.length; i++) {
        const m = await measureSlide(page, i);
        rows.push(m);
        if (process.env.SCREENSHOT_DIR && width === 1280) {
          mkdirSync(process.env.SCREENSHOT_DIR, {recursive: true});
          await page.screenshot({path: join(process.env.SCREENSHOT_DIR, `slide-${String(i + 1).padStart(2, "0")}-${m.id}.png`)});
        }
      }
      // per slide: how low its content reaches and its scroll height, against the slide's height
      console.log(`${width} x ${height}: ` + rows.map((m) => `${m.id} ${m.content}|${m.bottom}/${m.height}`).join(", "));
      const bad = rows.filter((m) => m.bottom > m.height || m.right > m.width || m.outside.length || m.small.length);
      assert.deepEqual(bad, [], "slides that overflow or shrink text");
    });
  }

  await t.test("the demo's slider redraws its plot inside the deck, from the keyboard too", async () => {
    await page.setViewportSize({width: 1280, height: 720});
    const index = slides.findIndex((s) => s.demo);
    await page.evaluate((i) => Reveal.slide(i), index);
    const readout = page.locator(".gradient-demo-readout");
    assert.match(await readout.textContent(), /^State after 60 steps: h = 0\.000\./);
    // at the room's text size no two of the chart's labels overlap (the axis label above its top tick)
    const overlaps = await page.evaluate(() => {
      const boxes = [...document.querySelectorAll('.gradient-demo svg[class^="plot"] text')]
        .map((t) => ({text: t.textContent, r: t.getBoundingClientRect()})).filter((b) => b.r.width > 0);
      const out = [];
      for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i].r, boxes[j].r];
        if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) out.push(`${boxes[i].text} / ${boxes[j].text}`);
      }
      return out;
    });
    assert.deepEqual(overlaps, [], "labels of the deck's chart drawn over each other");
    const w = page.locator(".gradient-demo form", {hasText: "Recurrent weight w"}).locator("input[type=range]");
    let before = await plotPaths(page);
    await w.fill("2");
    await page.waitForFunction((b) => [...document.querySelectorAll('.gradient-demo svg[class^="plot"] path')]
      .map((p) => p.getAttribute("d")).join("|") !== b, before, {timeout: 10_000});
    assert.match(await readout.textContent(), /\(1 − h²\) · w = 2\.000\./);
    // keyboard: focus the slider and press the arrow key; the value moves, the slide does not
    before = await plotPaths(page);
    await w.focus();
    for (let k = 0; k < 4; k++) await page.keyboard.press("ArrowLeft");
    assert.equal(await w.inputValue(), "1.8");
    await page.waitForFunction((b) => [...document.querySelectorAll('.gradient-demo svg[class^="plot"] path')]
      .map((p) => p.getAttribute("d")).join("|") !== b, before, {timeout: 10_000});
    assert.equal(await page.evaluate(() => Reveal.getIndices().h), index, "the arrow keys moved the slider, not the deck");
  });

  await t.test("the in-room answers appear on a click", async () => {
    await page.evaluate(() => Reveal.slide(0));  // measuring left fragments visible: start afresh
    await openDeck(page, server.origin);
    const index = slides.findIndex((s) => s.id === "check-forget-gates");
    await page.evaluate((i) => Reveal.slide(i, 0, -1), index);
    const answer = page.locator("#check-forget-gates .fragment");
    assert.equal(await answer.evaluate((el) => getComputedStyle(el).opacity), "0");
    await page.evaluate(() => Reveal.next());
    await page.waitForFunction(() => getComputedStyle(document.querySelector("#check-forget-gates .fragment")).opacity === "1");
    assert.equal(await page.evaluate(() => Reveal.getIndices().h), index, "the click showed the answer on the same slide");
  });

  await t.test("the speaker view (S) opens offline and shows the notes", async () => {
    await page.evaluate(() => Reveal.slide(2));
    const [speaker] = await Promise.all([context.waitForEvent("page"), page.keyboard.press("s")]);
    speaker.on("console", (msg) => { if (msg.type() === "error") problems.console.push(`speaker view: ${msg.text()}`); });
    speaker.on("pageerror", (err) => problems.pageErrors.push(`speaker view: ${err}`));
    await speaker.waitForFunction(() => /2 min\./.test(document.querySelector(".speaker-controls-notes")?.textContent ?? ""), null, {timeout: 30_000});
    assert.match(await speaker.locator(".speaker-controls-notes").textContent(), /blind spot/);
    await speaker.waitForFunction(() => document.querySelectorAll("iframe").length >= 2, null, {timeout: 30_000});
    await speaker.close();
  });

  await t.test("the handout prints to one PDF page per slide, the demo drawn", async () => {
    const print = await context.newPage();
    print.on("console", (msg) => { if (msg.type() === "error") problems.console.push(`print: ${msg.text()}`); });
    print.on("pageerror", (err) => problems.pageErrors.push(`print: ${err}`));
    await openDeck(print, server.origin, "?print-pdf");
    await print.waitForSelector(".pdf-page", {state: "attached", timeout: 30_000});
    assert.equal(await print.locator(".pdf-page").count(), slides.length, "one print page per slide");
    assert.ok(await print.locator('.pdf-page .gradient-demo svg[class^="plot"] path').count() > 0, "the demo's plot is in the handout");
    const pdf = await print.pdf({width: "1280px", height: "720px", printBackground: true, preferCSSPageSize: true});
    const pages = (pdf.toString("latin1").match(/\/Type\s*\/Page\b(?!s)/g) || []).length;
    assert.equal(pages, slides.length, `the PDF has ${pages} pages for ${slides.length} slides`);
    if (process.env.SCREENSHOT_DIR) writeFileSync(join(process.env.SCREENSHOT_DIR, "handout.pdf"), pdf);
    await print.close();
  });

  await t.test("the handout starts its demos only once reveal.js has laid out the printed slides", async () => {
    // reveal.js lays out ?print-pdf by taking every slide out of the page for an animation frame and
    // putting them back in .pdf-page boxes, then says "pdf-ready"; a demo cell run in between finds no
    // output element and never draws (on a loaded machine make handouts waited for it in vain).  So
    // the OJS runtime is requested after "pdf-ready"; here every animation frame also comes 0.5 s late.
    const slow = await context.newPage();
    const errors = [];
    slow.on("pageerror", (err) => errors.push(String(err)));
    await slow.addInitScript(() => {
      const raf = window.requestAnimationFrame.bind(window);
      window.requestAnimationFrame = (callback) => raf((t) => setTimeout(() => callback(t), 500));
      document.addEventListener("pdf-ready", () => { window.pdfReadyAt = performance.now(); });
    });
    await slow.goto(server.origin + DECK + "?print-pdf", {waitUntil: "load"});
    await slow.waitForSelector('.pdf-page .gradient-demo svg[class^="plot"] path', {state: "attached", timeout: 60_000});
    const {pdfReadyAt, runtimeAt} = await slow.evaluate(() => ({pdfReadyAt: window.pdfReadyAt,
      runtimeAt: performance.getEntriesByType("resource").find((e) => /quarto-ojs-runtime/.test(e.name))?.startTime}));
    assert.ok(pdfReadyAt !== undefined && runtimeAt !== undefined, `pdf-ready at ${pdfReadyAt}, runtime requested at ${runtimeAt}`);
    assert.ok(runtimeAt >= pdfReadyAt, `the OJS runtime was requested at ${runtimeAt.toFixed(0)} ms, before pdf-ready at ${pdfReadyAt.toFixed(0)} ms`);
    assert.deepEqual(errors, [], "page errors while the printed deck laid out");
    await slow.close();
  });

  await t.test("no console error, no failed request, nothing off the site", () => {
    assert.deepEqual(problems.blocked, [], "requests off the site");
    assert.deepEqual(problems.failed, [], "failed requests");
    assert.deepEqual(problems.pageErrors, [], "uncaught page errors");
    assert.deepEqual(problems.console, [], "console errors");
  });
});
