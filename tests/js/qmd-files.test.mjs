// qmd-files.mjs, the project's one include expansion (used by the .qmd tests here and, through its
// command line, by tests in other languages): includes relative to the file or to the project ("/..."),
// only where the shortcode starts a line; {{< meta KEY >}} from the page's directory metadata (a
// module's _metadata.yml, under `data:`), the page's and not the partial's; and every page of the
// course expands with no missing include, no loop and no meta key its metadata lacks.
import {test} from "node:test";
import assert from "node:assert/strict";
import {mkdtempSync, mkdirSync, writeFileSync, rmSync} from "node:fs";
import {execFileSync} from "node:child_process";
import {join} from "node:path";
import {ROOT, qmdFiles, isPartial, rel, expandIncludes, pageMetadata, metaValue} from "./qmd-files.mjs";
import YAML from "yaml";
import {modules} from "./course.mjs";

/** A scratch folder inside the project (pageMetadata reads _metadata.yml files from ROOT down). */
function scratch(t) {
  const dir = mkdtempSync(join(ROOT, "build", "qmd-files-"));
  t.after(() => rmSync(dir, {recursive: true, force: true}));
  return dir;
}

test("includes: relative to the including file or to the project; only at the start of a line", (t) => {
  mkdirSync(join(ROOT, "build"), {recursive: true});
  const dir = scratch(t);
  const name = rel(dir);
  mkdirSync(join(dir, "m", "parts"), {recursive: true});
  writeFileSync(join(dir, "shared.qmd"), "SHARED");
  writeFileSync(join(dir, "m", "parts", "_b.qmd"), "B\n{{< include /" + name + "/shared.qmd >}}");
  writeFileSync(join(dir, "m", "_a.qmd"), "A\n  {{< include parts/_b.qmd >}}");
  writeFileSync(join(dir, "m", "page.qmd"),
    "{{< include _a.qmd >}}\nsay {{< include _a.qmd >}} here\n{{< include _missing.qmd >}}\n{{< include page.qmd >}}");
  assert.equal(expandIncludes(join(dir, "m", "page.qmd")),
    "A\n  B\nSHARED\nsay {{< include _a.qmd >}} here\n{{< include _missing.qmd >}}\n{{< include page.qmd >}}");
  assert.throws(() => expandIncludes(join(dir, "m", "page.qmd"), {strict: true}), /includes _missing\.qmd, which does not exist/);
  writeFileSync(join(dir, "m", "loop.qmd"), "{{< include page.qmd >}}");
  writeFileSync(join(dir, "m", "page.qmd"), "{{< include loop.qmd >}}");
  assert.throws(() => expandIncludes(join(dir, "m", "page.qmd"), {strict: true}), /include loop: .*page\.qmd -> .*loop\.qmd -> .*page\.qmd/);
  writeFileSync(join(dir, "m", "page.qmd"), "x\n{{< include _a.qmd >}}\ny");
  assert.equal(expandIncludes(join(dir, "m", "page.qmd"), {leave: (f) => f.endsWith("_b.qmd")}), "x\nA\n  \ny");
});

test("meta: the page's directory metadata, merged from the project down, fills partials too", (t) => {
  const dir = scratch(t);
  mkdirSync(join(dir, "m", "parts"), {recursive: true});
  writeFileSync(join(dir, "_metadata.yml"), "data:\n  a: outer\n  b: outer\n");
  writeFileSync(join(dir, "m", "_metadata.yml"), "data:\n  b: '4.1744'\n  deep: {x: 7}\n");
  writeFileSync(join(dir, "m", "parts", "_metadata.yml"), "data:\n  b: not this one (the partial's folder)\n");
  writeFileSync(join(dir, "m", "parts", "_p.qmd"), "p {{< meta data.b >}}");
  writeFileSync(join(dir, "m", "page.qmd"),
    "{{< meta data.a >}} {{<meta data.b>}} {{< meta data.deep.x >}} {{< meta data.nope >}}\n{{< include parts/_p.qmd >}}");
  const page = join(dir, "m", "page.qmd");
  assert.deepEqual(pageMetadata(page).data, {a: "outer", b: "4.1744", deep: {x: 7}});
  assert.equal(metaValue(pageMetadata(page), "data.deep"), undefined, "a map is not a value");
  assert.equal(expandIncludes(page), "outer 4.1744 7 {{< meta data.nope >}}\np 4.1744");
  assert.equal(expandIncludes(page, {meta: false}), "{{< meta data.a >}} {{<meta data.b>}} {{< meta data.deep.x >}} {{< meta data.nope >}}\np {{< meta data.b >}}");
  assert.throws(() => expandIncludes(page, {strict: true}), /\{\{< meta data\.nope >\}\} is not in the page's _metadata\.yml/);
  // site_data --out-root: the generated _metadata.yml there wins (a module's real page, read only)
  const out = join(dir, "out");
  const [m, page2, key] = modules().flatMap((m) => ["index.qmd", "slides.qmd", "lab.qmd", "glossary.qmd"].map((n) => {
    const k = /\{\{<\s*meta\s+data\.([\w.\-]+)\s*>\}\}/.exec(expandIncludes(m.page(n), {meta: false}));
    return k ? [m, m.page(n), k[1]] : null;
  })).find(Boolean);
  mkdirSync(join(out, m.site), {recursive: true});
  const data = key.split(".").reduceRight((inner, part) => ({[part]: inner}), "from the out root");
  writeFileSync(join(out, m.site, "_metadata.yml"), YAML.stringify({data}));
  assert.equal(metaValue(pageMetadata(page2, {generatedRoot: out}), `data.${key}`), "from the out root");
  assert.notEqual(metaValue(pageMetadata(page2), `data.${key}`), "from the out root");
});

test("every page of the course expands: no missing include, no loop, no meta key its metadata lacks", () => {
  // the site's pages: the home page and the modules' pages (not the template scripts/module_template/)
  const pages = qmdFiles().filter((f) => !isPartial(f) && (rel(f).startsWith("modules/") || !rel(f).includes("/")));
  for (const m of modules()) assert.ok(pages.includes(m.page("index.qmd")), `${m.site}/index.qmd`);
  for (const page of pages) {
    const text = expandIncludes(page, {strict: true});
    assert.doesNotMatch(text, /^[ \t]*\{\{<\s*include\s/m, `${rel(page)}: an include left`);
    assert.doesNotMatch(text, /\{\{<\s*meta\s+data\./, `${rel(page)}: a meta value left`);
  }
});

test("the command line prints the same text, for tests in other languages", () => {
  const m = modules()[0];
  const out = execFileSync(process.execPath, [join(ROOT, "tests", "js", "qmd-files.mjs"), "expand", m.page("index.qmd"), "--strict",
    "--leave", "modules/*/_generated/**"], {encoding: "utf8"});
  assert.equal(out, expandIncludes(m.page("index.qmd"), {strict: true, leave: (f) => /^modules\/[^/]+\/_generated\//.test(rel(f))}));
  assert.doesNotMatch(out, /^[ \t]*\{\{<\s*include\s/m);
});
