// Every OJS cell of every .qmd parses (with @observablehq/parser, as Quarto's runtime does), and no
// page relies on a runtime built-in that the OJS runtime would load from a CDN: Plot, Inputs, d3
// and htl must come from the site's own copy (vendor/observable-libs.js, loaded by the course demo set-up, _extensions/course/demo-setup.ojs).
// No cell is a static OJS `import`: Quarto's runtime echoes each one through the `md` built-in,
// which loads marked from a CDN ("OJS Runtime Error: unable to load module" offline).  Modules are
// loaded with import(new URL("<relative path>", document.baseURI).href), resolved here like the
// browser does, against the page's folder.
import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync, existsSync} from "node:fs";
import {join, dirname} from "node:path";
import parser from "@observablehq/parser"; // 4.5.0, the version Quarto bundles (CommonJS main)
const {parseModule} = parser;
import {qmdFiles, rel, isPartial, expandIncludes, ojsBlocks, ROOT} from "./qmd-files.mjs";
import {modules, placeOf} from "./course.mjs";

// Built-ins of the Observable standard library that are fetched from a CDN when first used.
const CDN_BUILTINS = new Set(["d3", "Plot", "Inputs", "htl", "md", "tex", "dot", "mermaid", "_", "aq", "Arrow",
  "DuckDBClient", "SQLite", "SQLiteDatabaseClient", "topojson", "vl", "L"]);

const files = qmdFiles();

test("every module's page has OJS cells (its demos), so the checks below see them", () => {
  assert.ok(modules().length > 0, "no module (modules/<id>/module.yml)");
  for (const m of modules())
    assert.ok(ojsBlocks(expandIncludes(m.page("index.qmd"))).length > 0, `${m.site}/index.qmd has no OJS cell, includes expanded`);
});

// Quarto numbers a page's OJS blocks by the ```{ojs} fences of the page's own file (its
// src/execute/ojs/annotate-source.ts, v1.11.0) and warns "OJS block count mismatch" for every block
// beyond them, which an include brings in.  So every fence is written in the page, and a demo's
// cells are a .ojs partial included as the fence's one line.
const QUARTO_OJS_FENCE = /^[\t ]*```+\s*\{(ojs( *[ ,].*)?)\}\s*$/;   // Quarto's own test for a fence line
const ojsFiles = qmdFiles(ROOT, ".ojs");

test("every OJS fence is in the page's own file, so Quarto counts every block (no block-count warning)", () => {
  assert.ok(ojsFiles.length > 0, "no .ojs partial found");
  for (const file of files) {
    const own = readFileSync(file, "utf8");
    if (isPartial(file)) {
      assert.deepEqual(ojsBlocks(own).map((b) => b.line), [], `${rel(file)}: a partial with an OJS fence (Quarto would not count ` +
        "its blocks on the page that includes it); put the cells in a .ojs partial and the fence in the page");
      continue;
    }
    const fences = own.split("\n").filter((l) => QUARTO_OJS_FENCE.test(l)).length;
    assert.equal(ojsBlocks(expandIncludes(file)).length, fences, `${rel(file)}: OJS blocks, includes expanded, against its own fences`);
    for (const {source, line} of ojsBlocks(own)) {
      if (!/\{\{<\s*include\b/.test(source)) continue;
      assert.match(source, /^\{\{< include \S+\.ojs >\}\}$/, `${rel(file)}:${line}: an OJS fence holds a .ojs partial's include alone`);
    }
  }
});

// a page's blocks with its partials in place; a .ojs partial is the body of one block
const parsedBlocks = [...files.map((f) => [f, ojsBlocks(expandIncludes(f))]),
  ...ojsFiles.map((f) => [f, [{source: readFileSync(f, "utf8"), line: 0}]])];
for (const [file, blocks] of parsedBlocks) {
  if (blocks.length === 0) continue;
  test(`OJS cells parse: ${rel(file)}${file.endsWith(".qmd") && !isPartial(file) ? " (includes expanded)" : ""}`, () => {
    for (const {source, line} of blocks) {
      try {
        parseModule(source);
      } catch (e) {
        assert.fail(`${rel(file)}:${line + 1 + (e.loc?.line ?? 1) - 1}: ${e.message}`);
      }
    }
  });
}

for (const file of files.filter((f) => !isPartial(f))) {
  const blocks = ojsBlocks(expandIncludes(file));
  if (blocks.length === 0) continue;
  test(`OJS cells load nothing from a CDN: ${rel(file)} (includes expanded)`, () => {
    const defined = new Map(), used = new Map(), loaded = [];
    for (const {source, line} of blocks) {
      for (const cell of parseModule(source).cells) {
        assert.notEqual(cell.body?.type, "ImportDeclaration",
          `line ${line}: a static OJS import cell (Quarto echoes it through md, which loads marked from a CDN); ` +
          `use name = import(new URL("./x.js", document.baseURI).href), as _extensions/course/demo-setup.ojs does`);
        const name = cell.id?.name ?? cell.id?.id?.name; // x = …, viewof x = …
        if (name) {
          assert.ok(!defined.has(name), `line ${line}: ${name} is defined more than once on the page ` +
            `(first at line ${defined.get(name)}; is /_extensions/course/demo-setup.ojs included twice?)`);
          defined.set(name, line);
        }
        for (const ref of cell.references ?? []) if (!used.has(ref.name)) used.set(ref.name, line);
        const text = source.slice(cell.start, cell.end);
        for (const m of text.matchAll(/\bimport\s*\(((?:[^()]|\([^()]*\))*)\)/g)) loaded.push({arg: m[1], line});
      }
    }
    for (const [name, line] of used) {
      assert.ok(!CDN_BUILTINS.has(name) || defined.has(name), `line ${line}: ${name} is the OJS runtime's ` +
        "built-in, which loads from a CDN; define it from the site's copy (include /_extensions/course/demo-setup.ojs once)");
    }
    for (const {arg, line} of loaded) {
      const m = /^new URL\(\s*"([^"]+)"\s*,\s*document\.baseURI\s*\)\.href$/.exec(arg.trim());
      assert.ok(m, `line ${line}: import(${arg}) must be import(new URL("<path>", document.baseURI).href) ` +
        "(a bare relative import() resolves against the OJS runtime's folder, site_libs/quarto-ojs/)");
      // against the page's folder; a template page's folder is the one `make module` puts it in
      const {place, back} = placeOf(file);
      const target = back(join(dirname(place), m[1]));
      // vendor/ is written by scripts/pages/vendor_js.py (gitignored); everything else must exist now
      if (m[1].includes("vendor/")) assert.equal(target, join(ROOT, "vendor", "observable-libs.js"), `line ${line}: ${m[1]}`);
      else assert.ok(existsSync(target), `line ${line}: ${m[1]} does not exist next to ${rel(file)}`);
    }
  });
}
