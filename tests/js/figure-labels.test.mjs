// Every module's diagrams (figures/<id>/*.svg drawn by its code/diagrams.py, e.g. Module 3's Figures 1
// and 2, rnn-unrolled.svg and lstm-cell.svg): no label touches a line, a box outline or another label,
// and each SVG names itself for screen readers (role="img", a <title> and a <desc> that
// aria-labelledby points at).
//
// Chromium lays the SVG out inline at the widths a reader sees it: the page's figure column at a
// 1280 px window, and a phone's (390 px window; site.css gives the diagram a minimum width there
// and lets it scroll sideways, so its labels stay readable).  Every text's box, padded by PAD
// user units, must hold no point of any stroked outline (paths, rects, circles, sampled every
// unit of length) and must not overlap another text's box.  Skipped without Chromium.
import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync, existsSync} from "node:fs";
import {join, relative} from "node:path";
import {ROOT, modules} from "./course.mjs";
import {serve, openOffline, hasChromium, CHROMIUM} from "./browser.mjs";

// project-relative paths of every module's diagrams
const FIGURES = modules().flatMap((m) => m.diagrams()).map((f) => relative(ROOT, f));
const PAD = 2;                       // user units of clear space around every label
const PAGE_WIDTH = 790;              // the figure column at a 1280 px window (Quarto's default grid)
const PHONE_MIN = Number((readFileSync(join(ROOT, "site.css"), "utf8")
  .match(/--diagram-min-width:\s*(\d+)px/) ?? [])[1]);
const skip = !hasChromium() ? `no Chromium at ${CHROMIUM}` : false;

test("site.css keeps diagrams readable on a phone", () => {
  assert.ok(PHONE_MIN >= 600, "site.css sets --diagram-min-width (px) for the diagrams on narrow screens");
});

test("each diagram carries a title and a description for screen readers", () => {
  assert.ok(FIGURES.length > 0, "no module draws a diagram (modules/<id>/code/diagrams.py, DIAGRAMS)");
  for (const f of FIGURES) {
    const svg = readFileSync(join(ROOT, f), "utf8");
    const root = svg.match(/<svg\b[^>]*>/)[0];
    assert.match(root, /role="img"/, f);
    const ids = root.match(/aria-labelledby="([^"]+)"/)[1].split(/\s+/);
    const title = svg.match(/<title id="([^"]+)">([^<]{10,})<\/title>/);
    const desc = svg.match(/<desc id="([^"]+)">([^<]{40,})<\/desc>/);
    assert.ok(title && desc, `${f}: <title> and <desc> with ids and real text`);
    assert.deepEqual(ids, [title[1], desc[1]], `${f}: aria-labelledby names the title and the description`);
    assert.ok(!["title", "desc"].includes(title[1]), `${f}: ids unique to the figure (the page may inline two SVGs)`);
  }
});

/** In the page: every label's padded box, and the labels that a stroke or another label enters. */
function collisions(pad) {
  const svg = document.querySelector("svg");
  const texts = [...svg.querySelectorAll("text")];
  const boxes = texts.map((t) => {
    const b = t.getBBox();
    return {label: t.textContent, x0: b.x - pad, y0: b.y - pad, x1: b.x + b.width + pad, y1: b.y + b.height + pad};
  });
  const inside = (b, p) => p.x > b.x0 && p.x < b.x1 && p.y > b.y0 && p.y < b.y1;
  const found = [];
  const shapes = [...svg.querySelectorAll("path, rect, circle, line, polyline")].filter((s) =>
    !s.closest("defs") && getComputedStyle(s).stroke !== "none" && s.getAttribute("stroke"));
  for (const s of shapes) {
    const ctm = s.getCTM(), rootCtm = svg.getCTM();
    const toRoot = rootCtm.inverse().multiply(ctm);
    const length = s.getTotalLength();
    const points = [];
    for (let d = 0; d <= length; d += 1) points.push(s.getPointAtLength(d).matrixTransform(toRoot));
    for (const b of boxes) {
      const hit = points.find((p) => inside(b, p));
      if (hit) found.push(`label "${b.label}" touches a ${s.tagName} at (${hit.x.toFixed(0)}, ${hit.y.toFixed(0)})`);
    }
  }
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1) found.push(`labels "${a.label}" and "${b.label}" touch`);
    }
  }
  return {labels: texts.length, shapes: shapes.length, found};
}

test("no label touches a line, an outline or another label, at page and phone width", {skip}, async () => {
  const pages = {};
  for (const f of FIGURES) {
    const svg = readFileSync(join(ROOT, f), "utf8");
    for (const width of [PAGE_WIDTH, PHONE_MIN]) {
      pages[`/${f.replace(/\W/g, "_")}-${width}.html`] = `<!doctype html><meta charset="utf-8">` +
        `<style>body{margin:0} svg{width:${width}px;height:auto;display:block}</style>${svg}`;
    }
  }
  const {origin, close} = await serve(join(ROOT, "tests"), pages);
  const {browser, page} = await openOffline(origin);
  try {
    const found = [];
    for (const url of Object.keys(pages)) {
      await page.goto(origin + url);
      const r = await page.evaluate(collisions, PAD);
      assert.ok(r.labels >= 10 && r.shapes >= 10, `${url}: found ${r.labels} labels and ${r.shapes} shapes`);
      found.push(...r.found.map((m) => `${url}: ${m}`));
    }
    assert.deepEqual(found, []);
  } finally {
    await browser.close();
    await close();
  }
});

test("the checker finds a label on a line", {skip}, async () => {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100" width="200">` +
    `<path d="M 0 50 L 200 50" stroke="#000"/><text x="100" y="50" font-size="20">on</text>` +
    `<text x="100" y="20" font-size="20">a</text><text x="108" y="20" font-size="20">b</text></svg>`;
  const {origin, close} = await serve(join(ROOT, "tests"), {"/bad.html": `<!doctype html>${svg}`});
  const {browser, page} = await openOffline(origin);
  try {
    await page.goto(origin + "/bad.html");
    const r = await page.evaluate(collisions, PAD);
    assert.ok(r.found.some((m) => m.startsWith('label "on" touches a path')), r.found.join("; "));
    assert.ok(r.found.some((m) => m.includes('"a" and "b" touch')), r.found.join("; "));
  } finally {
    await browser.close();
    await close();
  }
});

test("every diagram a module's build draws is committed", () => {
  for (const f of FIGURES) assert.ok(existsSync(join(ROOT, f)), `${f} is missing (make data)`);
});
