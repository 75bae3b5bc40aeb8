#!/usr/bin/env node
// `make demo-places`: each demo's reserved place, measured on the rendered page, never typed.
//
// A demo that keeps a place until it draws (its cell's classes: `demo <name> demo-standin`) is, until
// then, exactly the height it will draw at, so that nothing below it moves when it draws
// (_extensions/course/demo.css: `height: var(--demo-place)`).  This opens each module's rendered
// pages in Chromium at the rendered-site suite's two sizes (1280 × 720 and 390 × 844: SCREENS),
// draws each such demo as a reader would (its collapsed callout opened, scrolled to), measures its
// drawn height (border box) and writes the module's generated stylesheet, modules/<id>/demo-places.css,
// which the module's pages name in their front matter (`css:`).  The heights are in rem of the page's
// root font size at that width (site.css's theme: 1.2em, 19.2 px), one rule per demo at 1280 px and
// one in the phone's media query.  The rendered-site suite (site-module-page.test.mjs, and
// new-module.test.mjs for the template) fails when a demo draws more than 2 px from its place, and
// says to run this.
//
//   node scripts/pages/demo_places.mjs                # every module, from the shared render of this checkout
//                                               # (tests/js/site-render.mjs: the one the tests use, rendered if needed)
//   node scripts/pages/demo_places.mjs --module ID    # one module (make demo-places MODULE=ID)
//   node scripts/pages/demo_places.mjs --site DIR     # the pages of DIR/_site, a project rendered already (e.g. --site .)
//   node scripts/pages/demo_places.mjs --template     # the module template's copy (make demo-places-template): a module
//                                               # made by `make module` in a copy of the project, rendered and measured
//
// Writes a file only when its text changes, and prints what it wrote.
import {spawnSync} from "node:child_process";
import {existsSync, readFileSync, readdirSync, writeFileSync} from "node:fs";
import {join, relative, resolve} from "node:path";
import {fileURLToPath} from "node:url";

export const ROOT = resolve(fileURLToPath(import.meta.url), "..", "..", "..");
export const PLACES_FILE = "demo-places.css";
export const COMMAND = "make demo-places";
export const TEMPLATE_COMMAND = "make demo-places-template";
export const TEMPLATE_PLACES = join(ROOT, "scripts", "module_template", "module", PLACES_FILE);
export const TOLERANCE_PX = 2;                  // a demo drawn further than this from its place moves the text below it
export const PHONE = "(max-width: 575.98px)";   // Bootstrap's sm breakpoint, below which the page is laid out for a phone
export const STANDIN = ".demo-standin";         // a demo that keeps its place (demo.css)
const OWN = new Set(["cell", "demo", "demo-standin", "demo-live"]);   // a demo cell's classes that are not its own name

/**
 * Every demo of the open page that keeps a place, drawn as a reader would draw it, in document order:
 * [{name, selector, kept, drawn, rootPx}], heights in px (border box).  `kept` is its height before it
 * draws (its place), `drawn` once it has drawn and stopped changing.  The page should be freshly loaded
 * (nothing drawn yet).
 */
export async function measureDemos(page) {
  const out = [];
  for (const demo of await page.locator(STANDIN).all()) {
    const {kept, classes} = await demo.evaluate((el) => {
      el.closest(".callout")?.querySelector(".callout-collapse")?.classList.add("show");
      el.scrollIntoView({block: "center"});
      return {kept: el.getBoundingClientRect().height, classes: [...el.classList]};
    });
    await page.mouse.wheel(0, 1);   // a reader's scroll (the OJS runtime loads at the first)
    const handle = await demo.elementHandle();
    await page.waitForFunction((el) => el.querySelector('svg[class^="plot"], .observablehq--error'), handle, {timeout: 30_000});
    // drawn: its height the same over five frames 100 ms apart, after its fonts (its last outputs come in over frames)
    const {drawn, rootPx, error} = await demo.evaluate(async (el) => {
      await document.fonts.ready;
      const wait = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 100)));
      let last = -1, same = 0;
      for (let i = 0; i < 100 && same < 5; i++) {
        await wait();
        const h = el.getBoundingClientRect().height;
        same = Math.abs(h - last) < 0.01 ? same + 1 : 0;
        last = h;
      }
      return {drawn: last, rootPx: parseFloat(getComputedStyle(document.documentElement).fontSize),
        error: el.querySelector(".observablehq--error")?.textContent ?? null};
    });
    const name = classes.filter((c) => !OWN.has(c));
    if (error) throw new Error(`.${name.join(".")}: an OJS error instead of a drawing: ${error.slice(0, 200)}`);
    out.push({name: name.join(" "), selector: name.map((c) => `.${c}`).join(""), kept, drawn, rootPx});
  }
  return out;
}

/** What differs from the places kept on the open page, one line per demo beyond TOLERANCE_PX; [] when none. */
export function moved(demos) {
  return demos.filter((d) => Math.abs(d.drawn - d.kept) > TOLERANCE_PX)
    .map((d) => `${d.name}: kept ${d.kept.toFixed(1)} px, drawn ${d.drawn.toFixed(1)} px`);
}

const rem = (d) => `${Number((d.drawn / d.rootPx).toFixed(2))}rem`;

/** The generated stylesheet's text from {screenName: demos} measured at SCREENS' sizes (a phone below PHONE). */
export function placesCss(byScreen, screens) {
  const wide = screens.find((s) => !matchesPhone(s.width)), phone = screens.find((s) => matchesPhone(s.width));
  const rules = (screen, indent) => (byScreen[screen.name] ?? []).map((d) => `${indent}main ${d.selector} { --demo-place: ${rem(d)}; }`);
  const root = [...new Set(Object.values(byScreen).flat().map((d) => d.rootPx))].map((px) => `${px} px`).join(", ");
  const header = [
    `/* GENERATED by \`${COMMAND}\` (scripts/pages/demo_places.mjs) from this module's rendered pages; do not edit.`,
    `   Each demo's place until it draws (--demo-place, _extensions/course/demo.css): its drawn height in`,
    root ? `   Chromium at ${wide.width} and ${phone.width} px wide, in rem of the page's root font size (${root}).`
      : `   Chromium at ${wide.width} and ${phone.width} px wide (none of this module's demos keeps a place).`,
    `   The rendered-site suite fails when a demo draws more than ${TOLERANCE_PX} px from its place: run`,
    `   \`${COMMAND}\` after changing a demo, and commit this file (the module template's: \`${TEMPLATE_COMMAND}\`). */`,
  ];
  const wideRules = rules(wide, ""), phoneRules = rules(phone, "  ");
  return [...header, ...wideRules, ...(phoneRules.length ? [`@media ${PHONE} {`, ...phoneRules, "}"] : [])].join("\n") + "\n";
}

function matchesPhone(width) {
  return width <= Number(/max-width:\s*([\d.]+)px/.exec(PHONE)[1]);
}

/** A rendered page of `siteDir` (a module's, relative to it) with a demo that keeps a place; a deck has no <main>, so no place. */
function pagesWithPlaces(siteDir, moduleId) {
  const dir = join(siteDir, "modules", moduleId);
  if (!existsSync(join(dir, "index.html")))
    throw new Error(`${relative(ROOT, dir) || dir}/index.html is not there: the module is not rendered in ${siteDir}`);
  return readdirSync(dir).filter((f) => f.endsWith(".html")).sort().filter((f) => {
    const html = readFileSync(join(dir, f), "utf8");
    return /class="[^"]*\bdemo-standin\b/.test(html) && /<main[\s>]/.test(html);
  }).map((f) => `modules/${moduleId}/${f}`);
}

/** Measure the modules `ids` in the rendered project `projectDir` (its _site/): {id: css text}. */
export async function measureSite(projectDir, ids) {
  const {serve, offlinePage, CHROMIUM, CHROMIUM_ARGS} = await import("../../tests/js/browser.mjs");
  const {SCREENS} = await import("../../tests/js/site-browser-checks.mjs");
  const siteDir = join(projectDir, "_site");
  const site = await serve(siteDir);
  const {chromium} = await import("playwright-core");
  const browser = await chromium.launch({executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true});
  const out = {};
  try {
    for (const id of ids) {
      const byScreen = {};
      for (const screen of SCREENS) {
        const seen = new Map();
        for (const path of pagesWithPlaces(siteDir, id)) {
          const {context, page, problems} = await offlinePage(browser, site.origin, {width: screen.width, height: screen.height});
          try {
            await page.goto(`${site.origin}/${path}`, {waitUntil: "load"});
            for (const d of await measureDemos(page)) {
              const before = seen.get(d.selector);
              if (before && Math.abs(before.drawn - d.drawn) > TOLERANCE_PX)
                throw new Error(`${path}: ${d.selector} draws ${d.drawn.toFixed(1)} px here and ${before.drawn.toFixed(1)} px on ${before.path} at ${screen.width} px: one class, one place`);
              if (!before) seen.set(d.selector, {...d, path});
            }
            const wrong = [...problems.pageErrors, ...problems.console];
            if (wrong.length) throw new Error(`${path} at ${screen.width} px: ${wrong.join("; ")}`);
          } finally {
            await context.close();
          }
        }
        byScreen[screen.name] = [...seen.values()];
      }
      out[id] = placesCss(byScreen, SCREENS);
    }
  } finally {
    await browser.close();
    await site.close();
  }
  return out;
}

function write(file, text) {
  const now = existsSync(file) ? readFileSync(file, "utf8") : null;
  if (now !== text) writeFileSync(file, text);
  const rules = (text.match(/\{ --demo-place:/g) ?? []).length;
  console.log(`demo-places: ${relative(ROOT, file)} (${rules} place${rules === 1 ? "" : "s"}; ${now === text ? "unchanged" : "written"})`);
}

/** The template's places: a module made from it in a copy of the project, rendered, measured. */
async function template() {
  const {copyProject} = await import("../project_copy.mjs");
  const {modules} = await import("../../tests/js/course.mjs");
  const taken = new Set(modules().map((m) => m.number));
  const number = [...Array(90).keys()].map((i) => 99 - i).find((n) => !taken.has(n));
  const id = `${String(number).padStart(2, "0")}-demo-places`;
  const copy = copyProject({prefix: "demo-places-", git: false});
  try {
    console.log(`demo-places: a module made from the template (${id}) in ${copy.project}, rendered`);
    for (const [cmd, ...args] of [["make", "-s", "module", `ID=${id}`, "TITLE=Demo Places"], ["nice", "quarto", "render"]]) {
      const r = spawnSync(cmd, args, {cwd: copy.project, encoding: "utf8"});
      if (r.status !== 0) throw new Error(`${[cmd, ...args].join(" ")} failed (exit ${r.status}):\n${`${r.stdout}\n${r.stderr}`.slice(-3000)}`);
    }
    const {[id]: css} = await measureSite(copy.project, [id]);
    write(TEMPLATE_PLACES, css);
  } finally {
    copy.remove();
  }
}

async function main(argv) {
  const arg = (name) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
  if (argv.includes("--template")) return template();
  const {modules, module} = await import("../../tests/js/course.mjs");
  const ids = arg("--module") ? [module(arg("--module")).id] : modules().map((m) => m.id);
  let projectDir = arg("--site") ? resolve(arg("--site")) : null;
  if (!projectDir) {
    const {renderedSite} = await import("../../tests/js/site-render.mjs");
    console.log("demo-places: the shared render of this checkout (tests/js/site-render.mjs; renders it if it is not there)");
    projectDir = (await renderedSite()).dir;
  }
  const measured = await measureSite(projectDir, ids);
  for (const id of ids) write(join(module(id).dir, PLACES_FILE), measured[id]);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err) => { console.error(`demo-places: ${err.message}`); process.exit(1); });
}
