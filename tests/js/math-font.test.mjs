// The math-font pass of the post-render (_extensions/course/post-render/passes/math-font.mjs): STIX Two Math cut to
// the characters the site's formulas draw (the italic letters a browser draws a one-letter <mi> in,
// and the radical sign of a square root, included), with its MATH table and licence; a render with
// no new character does not cut it again.  (The rendered-site suite checks that the pages draw their
// formulas in it.)
import {test} from "node:test";
import assert from "node:assert/strict";
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {dirname, join} from "node:path";
import {execFileSync, spawnSync} from "node:child_process";
import mathFont, {italic, formulaCharacters, ORIGINAL} from "../../_extensions/course/post-render/passes/math-font.mjs";
import {MATH_FONT} from "../../_extensions/course/post-render/passes/typeset-math.mjs";
import {Page} from "../../_extensions/course/post-render/page.mjs";
import {Site, finishSite} from "../../_extensions/course/post-render/pipeline.mjs";
import {Cache} from "../../_extensions/course/post-render/cache.mjs";
import {handMadeInventory} from "./hand-made-inventory.mjs";

const PAGE = `<html><body><p><math><msub><mi>h</mi><mi>t</mi></msub><mo>=</mo><mi>tanh</mi>
<msqrt><mi>&#x3B1;</mi></msqrt><mi mathvariant="normal">g</mi><mi>ℝ</mi></math></p></body></html>`;

const pageOf = (html) => new Page("/site", "/site/index.html", html);

test("the characters a page draws", () => {
  const chars = formulaCharacters(pageOf(PAGE));
  for (const c of ["h", "t", "=", "a", "n", "g", "ℝ", "α"]) assert.ok(chars.has(c), c);
  for (const c of ["ℎ", "\u{1D461}", "\u{1D6FC}"]) assert.ok(chars.has(c), `the italic ${c} a browser draws`);
  assert.ok(chars.has("√"), "a square root's sign, which is in no text");
  assert.ok(!chars.has("\u{1D454}"), "an upright g is not drawn italic");
  assert.ok(!chars.has("\u{1D44E}"), "the letters of a many-letter <mi> (tanh) are drawn upright");
  assert.deepEqual(formulaCharacters(pageOf("<math><mi>sin</mi></math>")), new Set(["s", "i", "n"]));
  assert.ok(!chars.has("\n"));
  assert.deepEqual(formulaCharacters(pageOf("<p>no formula</p>")), new Set());
});

test("the italic mapping follows MathML Core", () => {
  assert.deepEqual([..."Aazh∂Ωω1"].map(italic), ["\u{1D434}", "\u{1D44E}", "\u{1D467}", "ℎ", "\u{1D715}", "\u{1D6FA}", "\u{1D714}", "1"]);
});

/** A cache that counts what it computes. */
class CountingCache extends Cache {
  computed = 0;
  get(name, key, compute) {
    return super.get(name, key, () => { this.computed++; return compute(); });
  }
}

const python = process.env.PYTHON ?? "python3";
const noFontTools = spawnSync(python, ["-c", "import fontTools.ttLib"]).status !== 0;
const skip = !existsSync(ORIGINAL) ? "npm's @fontsource/stix-two-math is not installed (npm ci)"
  : noFontTools ? "fonttools is not installed (requirements.txt)" : false;

/** {cmap: [codepoints], math: whether it has a MATH table} of a font file, read with fonttools. */
function fontInfo(file) {
  const out = execFileSync(python, ["-c", `import json, sys
from fontTools.ttLib import TTFont
f = TTFont(sys.argv[1])
print(json.dumps({"cmap": sorted(f.getBestCmap()), "math": "MATH" in f}))`, file], {encoding: "utf8"});
  return JSON.parse(out);
}

test("the cut font draws every character with its math table; a second render with the same characters cuts nothing", {skip}, async () => {
  const dir = mkdtempSync(join(tmpdir(), "math-font-"));
  try {
    const site = join(dir, "site"), cacheDir = join(dir, ".cache");
    mkdirSync(join(site, "modules"), {recursive: true});
    writeFileSync(join(site, "modules", "index.html"), PAGE);
    const first = new CountingCache(cacheDir);
    const report = await finishSite(new Site({dir: site, project: dir, cache: first, quartoShare: null, inventory: handMadeInventory}), [mathFont]);
    const chars = formulaCharacters(pageOf(PAGE));
    assert.equal(report["math-font"]["(site)"], chars.size);
    assert.equal(first.computed, 1);
    const fontFile = join(site, MATH_FONT);
    const {cmap, math} = fontInfo(fontFile);
    const missing = [...chars].filter((c) => !cmap.includes(c.codePointAt(0)));
    assert.deepEqual(missing, [], "every character the formulas draw is in the font");
    assert.ok(math, "the MATH table: script sizes, fraction rules, stretched delimiters");
    assert.ok(statSync(fontFile).size < 60_000, `${statSync(fontFile).size} bytes`);
    assert.match(readFileSync(join(site, dirname(MATH_FONT), "LICENSE"), "utf8"), /SIL Open Font License/, "the licence beside the font");
    // a second render with the same characters takes the cut font from the cache, and writes nothing
    const before = statSync(fontFile).mtimeMs;
    const again = new CountingCache(cacheDir);
    await finishSite(new Site({dir: site, project: dir, cache: again, quartoShare: null, inventory: handMadeInventory}), [mathFont]);
    assert.equal(again.computed, 0, "the font was cut again");
    assert.equal(statSync(fontFile).mtimeMs, before);
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
});

test("a site without formulas gets no font", async () => {
  const dir = mkdtempSync(join(tmpdir(), "math-font-"));
  try {
    writeFileSync(join(dir, "index.html"), "<p>text</p>");
    const report = await finishSite(new Site({dir, project: dir, cache: new Cache(null), quartoShare: null, inventory: handMadeInventory}), [mathFont]);
    assert.equal(report["math-font"]["(site)"], 0);
    assert.ok(!existsSync(join(dir, MATH_FONT)));
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
});
