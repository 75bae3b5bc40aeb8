// The handouts (`make handouts`, scripts/pages/handouts.mjs) made from the tests' one render of the site
// (a copy of it, so the shared render stays as rendered), read back with pdftotext (poppler-utils):
//   - every module gets its three PDFs; Module 3's page PDF holds equation numbers (1) to (12) and "Equation 12" (cross-references
//     as text), every After-the-Lab box open (its title and its first words), every demo drawn (its
//     chart has marks, its readout's words are on paper), and "page N of M" on each page;
//   - the deck's PDF has one page per slide; with notes, two (the slide, then its notes);
//   - the module page and the deck link the three PDFs, once, even after a second run.
// Skipped, with the reason, without quarto, Chromium or pdftotext.
import {test} from "node:test";
import assert from "node:assert/strict";
import {cpSync, mkdtempSync, readFileSync, rmSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {execFileSync} from "node:child_process";
import {renderedSite} from "./site-render.mjs";
import {onPath, hasChromium, CHROMIUM} from "./browser.mjs";
import {makeHandouts, withLinks, handoutsOf} from "../../scripts/pages/handouts.mjs";

// Module 3 is checked in full: its page has 12 numbered equations and After-the-Lab boxes with demos
const ID = "03-sequence-models";
const {page: PAGE, deck: DECK, outputs: OUTPUTS} = handoutsOf(ID);

const skip = !onPath("quarto") ? "quarto is not on PATH: there is no rendered site to print"
  : !hasChromium() ? `no Chromium at ${CHROMIUM} (scripts/setup.sh installs it)`
  : !onPath("pdftotext") ? "pdftotext is missing (apt-get install poppler-utils; scripts/setup.sh does as root)" : false;

const text = (pdf, ...args) => execFileSync("pdftotext", [...args, pdf, "-"], {encoding: "utf8"});
const pages = (pdf) => Number(/^Pages:\s+(\d+)/m.exec(execFileSync("pdfinfo", [pdf], {encoding: "utf8"}))[1]);
const flat = (s) => s.replace(/\ufb01/g, "fi").replace(/\ufb02/g, "fl").replace(/\s+/g, " ");

test("handout links are placed once, after their anchor", () => {
  const html = '<p>a</p><p><a href="slides.html">Present</a></p><p>b</p>';
  const once = withLinks(html, /<p><a href="slides\.html">Present<\/a><\/p>/, "<p>L</p>");
  assert.equal(once, '<p>a</p><p><a href="slides.html">Present</a></p>\n<!-- handouts: scripts/pages/handouts.mjs --><p>L</p><!-- /handouts -->\n<p>b</p>');
  assert.equal(withLinks(once, /<p><a href="slides\.html">Present<\/a><\/p>/, "<p>L</p>"), once);
  assert.equal(withLinks(html, /nothing/, "x"), null);
});

test("make handouts: the module page and the deck as PDFs, read back", {skip}, async (t) => {
  const {site: rendered} = await renderedSite();
  const work = mkdtempSync(join(tmpdir(), "handouts-"));
  t.after(() => rmSync(work, {recursive: true, force: true}));
  const site = join(work, "_site");
  cpSync(rendered, site, {recursive: true});
  const made = await makeHandouts(site, {log: () => {}});
  assert.ok(made[ID], `no handouts for ${ID}: ${Object.keys(made).join(", ")}`);
  const {files, facts} = made[ID];

  await t.test("the module page: 12 equation numbers, cross-references, page numbers", () => {
    const all = flat(text(files.page));
    const numbers = new Set([...all.matchAll(/\((\d{1,2})\)/g)].map((m) => Number(m[1])));
    const missing = Array.from({length: 12}, (_, i) => i + 1).filter((n) => !numbers.has(n));
    assert.deepEqual(missing, [], "equation numbers missing from the PDF");
    assert.deepEqual(facts.page.equations, Array.from({length: 12}, (_, i) => `(${i + 1})`), "the page's equation numbers");
    assert.match(all, /Equation 12\b/, "cross-references print as text");
    const n = pages(files.page);
    assert.ok(n >= 8, `the page printed on ${n} pages`);
    for (const k of [1, n]) assert.match(flat(text(files.page, "-f", String(k), "-l", String(k))), new RegExp(`page ${k} of ${n}`));
  });

  await t.test("the module page: every After-the-Lab box open, with its words on paper", () => {
    const all = flat(text(files.page));
    assert.ok(facts.page.afterLab.length >= 4, `only ${facts.page.afterLab.length} After-the-Lab boxes found`);
    for (const box of facts.page.afterLab) {
      assert.ok(box.open, `${box.title}: closed`);
      assert.ok(all.includes(flat(box.title)), `${box.title}: its title is not in the PDF`);
      assert.ok(box.first && all.includes(flat(box.first)), `${box.title}: its first words "${box.first}" are not in the PDF`);
    }
  });

  await t.test("the module page: no demo left blank (drawn, or its static figure in its place)", () => {
    const all = flat(text(files.page));
    assert.ok(facts.page.demos.length >= 6, `${facts.page.demos.length} demos`);
    for (const d of facts.page.demos) {
      assert.ok(d.printed, `${d.className}: neither drawn nor stood in for by a figure`);
      if (d.printed === "drawn") assert.ok(d.marks > 5, `${d.className}: its chart has ${d.marks} marks`);
      else if (d.printed === "live") assert.match(d.className, /\bdemo-live\b/);     // its words, checked below
      else assert.match(d.printed, /figures\/([\w-]+\/)?[\w-]+\.svg$/, `${d.className}: its static figure`);
      assert.ok(d.text && all.includes(flat(d.text)), `${d.className}: "${d.text}" is not in the PDF`);
    }
  });

  await t.test("the deck: one page per slide; with notes, two", () => {
    assert.ok(facts.slides >= 20, `${facts.slides} slides`);
    assert.equal(pages(files.slides), facts.slides);
    assert.equal(pages(files.notes), 2 * facts.slides);
    assert.match(flat(text(files.notes, "-f", "2", "-l", "2")), /Speaker notes/);
  });

  await t.test("the page and the deck link the PDFs, once", async () => {
    await makeHandouts(site, {log: () => {}});               // a second run replaces, never doubles
    for (const [file, min] of [[PAGE, 3], [DECK, 3]]) {
      const html = readFileSync(join(site, file), "utf8");
      assert.equal(html.split("<!-- handouts: scripts/pages/handouts.mjs -->").length - 1, 1, `${file}: one block of links`);
      for (const pdf of Object.values(OUTPUTS)) assert.ok(html.includes(`href="${pdf}"`), `${file} links ${pdf}`);
      assert.ok(min);
    }
  });
});
