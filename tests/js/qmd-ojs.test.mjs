// Every OJS cell of every .qmd parses (with @observablehq/parser, as Quarto's runtime does), and no
// page relies on a runtime built-in that the OJS runtime would load from a CDN: Plot, Inputs, d3
// and htl must come from the site's own copy (vendor/observable-libs.js), imported on the page.
import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync, existsSync} from "node:fs";
import {join, dirname} from "node:path";
import parser from "@observablehq/parser"; // 4.5.0, the version Quarto bundles (CommonJS main)
const {parseModule} = parser;
import {qmdFiles, rel, isPartial, expandIncludes, ojsBlocks, ROOT} from "./qmd-files.mjs";

// Built-ins of the Observable standard library that are fetched from a CDN when first used.
const CDN_BUILTINS = new Set(["d3", "Plot", "Inputs", "htl", "md", "tex", "dot", "mermaid", "_", "aq", "Arrow",
  "DuckDBClient", "SQLite", "SQLiteDatabaseClient", "topojson", "vl", "L"]);

const files = qmdFiles();

test("the project has .qmd files with OJS cells (the section-4 demo at least)", () => {
  const withOjs = files.filter((f) => ojsBlocks(readFileSync(f, "utf8")).length > 0).map(rel);
  assert.ok(withOjs.includes("modules/03-sequence-models/_gradient-demo.qmd"), `found OJS in: ${withOjs.join(", ")}`);
});

for (const file of files) {
  const blocks = ojsBlocks(readFileSync(file, "utf8"));
  if (blocks.length === 0) continue;
  test(`OJS cells parse: ${rel(file)}`, () => {
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
    const defined = new Set(), imported = new Map(), used = new Map();
    for (const {source, line} of blocks) {
      for (const cell of parseModule(source).cells) {
        if (cell.body?.type === "ImportDeclaration") {
          const from = cell.body.source.value;
          assert.ok(from.startsWith(".") || from.startsWith("/"),
            `line ${line}: import from "${from}" is not a local file (the runtime would fetch it)`);
          for (const s of cell.body.specifiers) imported.set(s.local.name, from);
          if (from.startsWith(".")) {
            // a relative import resolves against the page's folder: the file must exist
            const target = join(dirname(file), from);
            assert.ok(existsSync(target) || from.includes("vendor/"), `line ${line}: ${from} does not exist`);
          }
        } else if (cell.id?.name) defined.add(cell.id.name);
        else if (cell.id?.id?.name) defined.add(cell.id.id.name); // viewof x / mutable x
        for (const ref of cell.references ?? []) if (!used.has(ref.name)) used.set(ref.name, line);
      }
    }
    for (const [name, line] of used) {
      if (!CDN_BUILTINS.has(name) || defined.has(name)) continue;
      const from = imported.get(name);
      assert.ok(from, `line ${line}: ${name} is the OJS runtime's built-in, which loads from a CDN; ` +
        `import it from the site's copy (see _gradient-demo.qmd)`);
      assert.match(from, /vendor\/observable-libs\.js$/, `${name} must come from vendor/observable-libs.js`);
    }
    for (const [name, from] of imported) {
      if (!/vendor\/observable-libs\.js$/.test(from)) continue;
      // the vendored module is written by scripts/vendor_js.py into <root>/vendor/: the relative
      // path from the page must point there
      const target = from.startsWith("/") ? join(ROOT, from) : join(dirname(file), from);
      assert.equal(target, join(ROOT, "vendor", "observable-libs.js"), `${name}: ${from} does not point at <root>/vendor/`);
    }
  });
}
