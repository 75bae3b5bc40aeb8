// Screenshots of every display formula of a rendered site, in Chromium and Firefox ESR, and a pixel
// comparison of two sets: the check that a change to how formulas are typeset or styled draws them
// as before.  Not a test (it needs Firefox ESR, which `apt-get install firefox-esr` brings).
//
//   node scripts/pages/formula_shots.mjs shoot SITE OUT        # OUT/<browser>/<page>-<n>.png
//   node scripts/pages/formula_shots.mjs compare BEFORE AFTER  # each pair pixel by pixel; exit 1 on a difference
//
// Chromium is Debian's (playwright-core); Firefox ESR is driven by puppeteer-core over WebDriver BiDi.
// A deck's formula is shot on its own slide (reveal.js shows one at a time).
import {mkdirSync, readdirSync, readFileSync, writeFileSync, existsSync} from "node:fs";
import {join, relative} from "node:path";
import {serve, CHROMIUM, CHROMIUM_ARGS} from "../../tests/js/browser.mjs";

const FIREFOX = process.env.FIREFOX || "/usr/bin/firefox-esr";
const VIEWPORT = {width: 1280, height: 720};
const DISPLAY = ".math.display";

function htmlPages(dir, root = dir) {
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return ["site_libs", "vendor"].includes(e.name) ? [] : htmlPages(path, root);
    return e.name.endsWith(".html") && readFileSync(path, "utf8").includes("math display") ? [relative(root, path)] : [];
  });
}

// in the page: bring formula i into view (its slide, in a deck) and wait for its fonts
async function showFormula(i) {
  const el = document.querySelectorAll(".math.display")[i];
  if (window.Reveal) {
    const {h, v} = window.Reveal.getIndices(el.closest("section.slide, section.stack > section") || el.closest("section"));
    window.Reveal.slide(h, v ?? 0);
  } else {
    el.scrollIntoView({block: "center"});
  }
  await document.fonts.ready;
  await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
  return document.querySelectorAll(".math.display").length;
}

async function chromiumPages() {
  const {chromium} = await import("playwright-core");
  const browser = await chromium.launch({executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true});
  return {browser, newPage: async () => (await browser.newContext({viewport: VIEWPORT})).newPage()};
}

async function firefoxPages() {
  const puppeteer = (await import("puppeteer-core")).default;
  const browser = await puppeteer.launch({browser: "firefox", executablePath: FIREFOX, headless: true,
    protocol: "webDriverBiDi"});
  return {browser, newPage: async () => { const p = await browser.newPage(); await p.setViewport(VIEWPORT); return p; }};
}

async function shoot(site, out) {
  const {origin, close} = await serve(site);
  const pages = htmlPages(site);
  for (const [name, open] of [["chromium", chromiumPages], ["firefox", firefoxPages]]) {
    const {browser, newPage} = await open();
    mkdirSync(join(out, name), {recursive: true});
    for (const rel of pages) {
      const page = await newPage();
      await page.goto(`${origin}/${rel}`, {waitUntil: "load"});
      const count = await page.evaluate(showFormula, 0);
      for (let i = 0; i < count; i++) {
        await page.evaluate(showFormula, i);
        const el = (await page.$$(DISPLAY))[i];
        writeFileSync(join(out, name, `${rel.replace(/[\\/]/g, "_")}-${String(i).padStart(2, "0")}.png`), await el.screenshot());
      }
      console.log(`${name}: ${rel}: ${count} display formulas`);
      await page.close();
    }
    await browser.close();
  }
  await close();
}

// in Chromium: how many pixels of two PNGs (data: URLs) differ, or null when their sizes differ
async function differingPixels([a, b]) {
  const load = (src) => new Promise((ok, fail) => { const im = new Image(); im.onload = () => ok(im); im.onerror = fail; im.src = src; });
  const [x, y] = await Promise.all([load(a), load(b)]);
  if (x.width !== y.width || x.height !== y.height) return null;
  const data = (im) => { const c = new OffscreenCanvas(im.width, im.height); const g = c.getContext("2d"); g.drawImage(im, 0, 0); return g.getImageData(0, 0, im.width, im.height).data; };
  const [p, q] = [data(x), data(y)];
  let n = 0;
  for (let i = 0; i < p.length; i += 4) if (p[i] !== q[i] || p[i + 1] !== q[i + 1] || p[i + 2] !== q[i + 2] || p[i + 3] !== q[i + 3]) n++;
  return n;
}

async function compare(before, after) {
  const {browser, newPage} = await chromiumPages();
  const page = await newPage();
  let same = 0, problems = [];
  for (const name of readdirSync(before)) {
    const files = new Set([...readdirSync(join(before, name)), ...(existsSync(join(after, name)) ? readdirSync(join(after, name)) : [])]);
    for (const file of [...files].sort()) {
      const [a, b] = [join(before, name, file), join(after, name, file)];
      if (!existsSync(a) || !existsSync(b)) { problems.push(`${name}/${file}: only in ${existsSync(a) ? "before" : "after"}`); continue; }
      const url = (p) => `data:image/png;base64,${readFileSync(p).toString("base64")}`;
      const n = readFileSync(a).equals(readFileSync(b)) ? 0 : await page.evaluate(differingPixels, [url(a), url(b)]);
      if (n === 0) same++;
      else problems.push(`${name}/${file}: ${n === null ? "a different size" : `${n} pixels differ`}`);
    }
  }
  await browser.close();
  for (const p of problems) console.log(p);
  console.log(`formula screenshots: ${same} identical, ${problems.length} different`);
  return problems.length ? 1 : 0;
}

const [command, a, b] = process.argv.slice(2);
if (command === "shoot" && a && b) await shoot(a, b);
else if (command === "compare" && a && b) process.exitCode = await compare(a, b);
else {
  console.error("usage: node scripts/pages/formula_shots.mjs shoot SITE OUT | compare BEFORE AFTER");
  process.exitCode = 2;
}
