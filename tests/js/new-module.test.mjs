// `make module` proven on a copy of the project: a second module written from the template, built at
// its (tiny) settings and rendered with the whole course.  The home lists both modules; both pages and
// both decks load offline with no console error; the new module's own node tests (modules/<id>/tests/)
// pass; its pages are held to every per-page rule of the rendered-site suite at both sizes; and git sees
// no change outside the new module's own folders and its registration (one navbar menu in _quarto.yml).
// Skips the render without Quarto.
import {test} from "node:test";
import assert from "node:assert/strict";
import {execFileSync} from "node:child_process";
import {mkdtempSync, rmSync, symlinkSync, existsSync, readFileSync, mkdirSync} from "node:fs";
import {tmpdir} from "node:os";
import {join, resolve, dirname} from "node:path";
import {fileURLToPath} from "node:url";
import {hasChromium, onPath, openOffline, offlinePage, serve} from "./browser.mjs";
import {assertNoProblems} from "./page-checks.mjs";
import {modules} from "./course.mjs";
import {SCREENS, openPage, pageDefects, axeViolations} from "./site-browser-checks.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const NEW_ID = "09-template-check";
const EXISTING = modules().map((m) => m.id);    // the course's modules before make module
const run = (cmd, args, cwd) => execFileSync(cmd, args, {cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"]});

function copyProject() {
  const base = mkdtempSync(join(tmpdir(), "course-"));
  const project = join(base, "project");
  mkdirSync(project);
  // the tracked and untracked-but-not-ignored files, as a clone would have them
  const files = run("git", ["ls-files", "-co", "--exclude-standard", "-z"], ROOT).split("\0").filter(Boolean);
  execFileSync("tar", ["-cf", join(base, "p.tar"), "--null", "-T", "-"], {cwd: ROOT, input: files.join("\0")});
  run("tar", ["-xf", join(base, "p.tar")], project);
  symlinkSync(join(ROOT, "node_modules"), join(project, "node_modules"));
  symlinkSync(resolve(ROOT, "../shared"), join(base, "shared"));
  for (const args of [["init", "-q"], ["add", "-A"], ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base"]]) {
    run("git", args, project);
  }
  return {base, project};
}

test("make module writes, builds and renders a second module; nothing else changes", async (t) => {
  const {base, project} = copyProject();
  t.after(() => rmSync(base, {recursive: true, force: true}));
  run("make", ["-s", "module", `ID=${NEW_ID}`, "TITLE=Template Check"], project);

  const changed = run("git", ["status", "--porcelain", "--untracked-files=all"], project).split("\n").filter(Boolean)
    .map((line) => line.slice(3));
  const own = [`modules/${NEW_ID}/`, `lab/${NEW_ID}/`, `data/${NEW_ID}/`];
  const outside = changed.filter((p) => !own.some((dir) => p.startsWith(dir)) && p !== "_quarto.yml");
  assert.deepEqual(outside, [], "files changed outside the new module's folders and its registration");
  for (const file of ["module.yml", "index.qmd", "slides.qmd", "lab.qmd", "glossary.qmd", "_metadata.yml"]) {
    assert.ok(existsSync(join(project, "modules", NEW_ID, file)), `modules/${NEW_ID}/${file}`);
  }
  const results = JSON.parse(readFileSync(join(project, "data", NEW_ID, "results.json"), "utf8"));
  assert.ok(results.claims.length > 0 && results.claims.every((c) => c.holds), "the template's claim holds");
  // its own node tests, found by its folder as make test finds them
  const own_tests = run("make", ["-s", "-n", "test"], project);
  assert.match(own_tests, new RegExp(`modules/${NEW_ID}/tests/sweep-demo\\.test\\.mjs`), "make test runs the module's own tests");
  run("node", ["--test", `modules/${NEW_ID}/tests/`], project);
  const notebook = readFileSync(join(project, "lab", NEW_ID, "lab09_template_check.ipynb"), "utf8");
  assert.match(notebook, /raise NotImplementedError/, "the student notebook has the exercise as a stub");
  assert.match(notebook, /use_solution/, "and its folded solution");

  if (!onPath("quarto")) return t.skip("quarto is not on PATH: the render of the two-module course is not checked");
  run("quarto", ["render"], project);
  const home = readFileSync(join(project, "_site", "index.html"), "utf8");
  for (const id of [...EXISTING, NEW_ID]) assert.match(home, new RegExp(`modules/${id}/index.html`), `home lists ${id}`);
  if (!hasChromium()) return t.skip("no Chromium: the pages are not opened");

  const site = await serve(join(project, "_site"));
  const {browser, page, problems} = await openOffline(site.origin);
  try {
    await page.goto(`${site.origin}/index.html`, {waitUntil: "load"});
    assertNoProblems(problems);
    for (const id of [...EXISTING, NEW_ID]) {
      for (const doc of ["index.html", "slides.html"]) {
        const fresh = await offlinePage(browser, site.origin);
        await fresh.page.goto(`${site.origin}/modules/${id}/${doc}`, {waitUntil: "load"});
        await fresh.page.waitForTimeout(1500);     // the OJS runtime draws the demos
        const errors = await fresh.page.$$eval(".observablehq--error", (els) => els.map((e) => e.textContent));
        assert.deepEqual(errors, [], `${id}/${doc}: OJS errors`);
        assertNoProblems(fresh.problems);
        await fresh.context.close();
      }
    }
    // the new module's pages, held to every per-page rule of the rendered-site suite
    for (const doc of ["index.html", "slides.html", "lab.html", "glossary.html"]) {
      for (const screen of SCREENS) {
        const opened = await openPage(browser, site.origin, `modules/${NEW_ID}/${doc}`, screen);
        try {
          const defects = [...await pageDefects(opened.page, screen), ...(await axeViolations(opened.page)).map((v) => `axe-core: ${v}`)];
          assert.deepEqual(defects, [], `the new module's ${doc} at ${screen.width} px`);
          assertNoProblems(opened.problems);
        } finally {
          await opened.context.close();
        }
      }
    }
    // the new module's demo drew its chart from the module's own data
    const demo = await offlinePage(browser, site.origin);
    await demo.page.goto(`${site.origin}/modules/${NEW_ID}/index.html`, {waitUntil: "load"});
    await demo.page.click(".callout .callout-header");
    await demo.page.waitForSelector("svg[aria-label^='Entropy']", {timeout: 10_000});
    await demo.context.close();
  } finally {
    await browser.close();
    await site.close();
  }
});
