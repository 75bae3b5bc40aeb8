// `make module` proven on a copy of the project: a second module written from the template, built at
// its (tiny) settings and rendered with the whole course.  The home lists both modules; both pages and
// both decks load offline with no console error; the new module's own tests (modules/<id>/tests/: the
// template's node and Python tests, unedited) and what tests/test_every_module.py and tests/test_page_rules.py
// hold every module to pass; its pages are held to every per-page rule of the rendered-site suite at both sizes, and its demo
// draws in the place kept for it (the template's demo-places.css, within 2 px); and git sees
// no change outside the new module's own folders and its registration (one navbar menu in _quarto.yml).
// Skips the render without Quarto.
import {test} from "node:test";
import assert from "node:assert/strict";
import {execFileSync} from "node:child_process";
import {existsSync, readFileSync, readdirSync} from "node:fs";
import {join} from "node:path";
import {hasChromium, onPath, openOffline, offlinePage, serve} from "./browser.mjs";
import {assertNoProblems} from "./page-checks.mjs";
import {modules} from "./course.mjs";
import {SCREENS, openPage, pageDefects, axeViolations} from "./site-browser-checks.mjs";
import {copyProject} from "../../scripts/project_copy.mjs";
import {measureDemos, moved, PLACES_FILE, TEMPLATE_COMMAND} from "../../scripts/pages/demo_places.mjs";

const NEW_ID = "09-template-check";
const EXISTING = modules().map((m) => m.id);    // the course's modules before make module
const run = (cmd, args, cwd) => execFileSync(cmd, args, {cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"]});

test("make module writes, builds and renders a second module; nothing else changes", async (t) => {
  const {project, remove} = copyProject();
  t.after(remove);
  run("make", ["-s", "module", `ID=${NEW_ID}`, "TITLE=Template Check"], project);

  const changed = run("git", ["status", "--porcelain", "--untracked-files=all"], project).split("\n").filter(Boolean)
    .map((line) => line.slice(3));
  const own = [`modules/${NEW_ID}/`, `lab/${NEW_ID}/`, `data/${NEW_ID}/`];
  const outside = changed.filter((p) => !own.some((dir) => p.startsWith(dir)) && p !== "_quarto.yml");
  assert.deepEqual(outside, [], "files changed outside the new module's folders and its registration");
  for (const file of ["module.yml", "index.qmd", "slides.qmd", "lab.qmd", "glossary.qmd", "_metadata.yml", PLACES_FILE]) {
    assert.ok(existsSync(join(project, "modules", NEW_ID, file)), `modules/${NEW_ID}/${file}`);
  }
  const results = JSON.parse(readFileSync(join(project, "data", NEW_ID, "results.json"), "utf8"));
  assert.ok(results.claims.length > 0 && results.claims.every((c) => c.holds), "the template's claim holds");
  // its own node tests, found by its folder as make test finds them
  const own_tests = run("make", ["-s", "-n", "test"], project);
  assert.match(own_tests, new RegExp(`modules/${NEW_ID}/tests/sweep-demo\\.test\\.mjs`), "make test runs the module's own tests");
  run("node", ["--test", `modules/${NEW_ID}/tests/`], project);
  // committed, as a module is before its Colab link works (the link names the committed notebook)
  run("git", ["add", "--", `modules/${NEW_ID}`, `lab/${NEW_ID}`, `data/${NEW_ID}`, "_quarto.yml"], project);
  run("git", ["-c", "user.name=test", "-c", "user.email=test@localhost", "commit", "-q", "-m", "make module"], project);
  // its own Python tests (pages, page data, claims), found as make test finds them (pytest.ini's testpaths)
  // and passing with no edit (pytest exits non-zero, failing this, on any failure)
  const collected = run("python3", ["-m", "pytest", "-q", "--co", "-p", "no:cacheprovider", "-m", "not slow"], project);
  const ownPython = readdirSync(join(project, "modules", NEW_ID, "tests")).filter((f) => /^test_.*\.py$/.test(f)).sort();
  assert.deepEqual(ownPython, ["test_claims.py", "test_page_data.py", "test_pages.py"], "the template's Python tests");
  const ownRun = run("python3", ["-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", `modules/${NEW_ID}/tests/`], project);
  for (const file of ownPython) {
    const test = new RegExp(`modules/${NEW_ID}/tests/${file.replace(".", "\\.")}::`);
    assert.match(collected, test, `pytest collects ${file}`);
    assert.match(ownRun, new RegExp(`PASSED ${test.source}`), `${file} passes`);
  }
  // what is true of every module (schema, freshness, claims, page data, notebook, the page rules), on the new one
  const everyModule = run("python3", ["-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "-k", NEW_ID,
    "tests/test_every_module.py", "tests/test_page_rules.py"], project);
  for (const [file, names] of [["test_every_module", ["test_committed_results_are_valid_and_not_stale", "test_claims_hold_on_committed_results_as_recorded",
    "test_page_data_is_what_the_data_gives", "test_student_notebook_is_generated_valid_and_output_free",
    "test_the_boxes_claims_are_checked_by_the_build_and_each_box_is_on_the_page",
    "test_the_results_file_the_page_names_is_the_one_the_lab_saves"]],
  ["test_page_rules", ["test_formatting_lives_in_one_place", "test_includes_are_alone_on_their_line", "test_no_module_types_its_measured_values",
    "test_colab_link_is_typed_nowhere", ...(onPath("quarto") ? ["test_colab_link_is_the_published_repositorys_notebook"] : [])]]])
    for (const name of names)
      assert.match(everyModule, new RegExp(`PASSED tests/${file}\\.py::${name}\\[${NEW_ID}\\]`), `${file}: ${name} on the new module`);
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
    // its demo keeps its place until it draws (the template's demo-places.css, measured on a module made
    // from it): the freshness test of the template's copy
    for (const screen of SCREENS) {
      const fresh = await offlinePage(browser, site.origin, {width: screen.width, height: screen.height});
      try {
        await fresh.page.goto(`${site.origin}/modules/${NEW_ID}/index.html`, {waitUntil: "load"});
        const demos = await measureDemos(fresh.page);
        assert.ok(demos.length > 0, "the template's demo keeps a place (demo-standin)");
        assert.deepEqual(moved(demos), [], `the new module's demo moves the text below it at ${screen.width} px: ` +
          `the template's places (scripts/module_template/module/${PLACES_FILE}) are stale; run \`${TEMPLATE_COMMAND}\` and commit it`);
      } finally {
        await fresh.context.close();
      }
    }
    // the new module's demo drew its chart from the module's own data
    const demo = await offlinePage(browser, site.origin);
    await demo.page.goto(`${site.origin}/modules/${NEW_ID}/index.html`, {waitUntil: "load"});
    await demo.page.click(".callout .callout-header");
    await demo.page.waitForSelector("svg[aria-label^='Entropy']", {timeout: 10_000});
    await demo.context.close();
    // its Your run box takes the file its own lab saved (the build keeps it) and shows it in its After-the-Lab box
    const own = await offlinePage(browser, site.origin, {width: 390, height: 844});
    try {
      await own.page.goto(`${site.origin}/modules/${NEW_ID}/index.html`, {waitUntil: "load"});
      await own.page.setInputFiles("#your-run-file", join(project, "build", NEW_ID, "full", "lab_results.json"));
      await own.page.waitForSelector(".after-the-lab-sweep .your-run-compare", {state: "attached", timeout: 60_000});   // in its collapsed box
      const claims = await own.page.locator(".after-the-lab-sweep .your-run-claims li").allTextContents();
      assert.deepEqual(claims.map((c) => c.slice(0, 20)), ["Holds in your run: t"], claims.join(" | "));
      assertNoProblems(own.problems);
    } finally {
      await own.context.close();
    }
  } finally {
    await browser.close();
    await site.close();
  }
});
