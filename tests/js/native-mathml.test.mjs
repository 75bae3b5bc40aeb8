// _extensions/course/post-render/native-mathml.mjs: the pages' formulas as MathML Core, with the TeX layout MathJax gives
// them written out (TeX's spaces, the variants as Unicode letters, aligned tables, accents, primes),
// and an error for what MathML Core cannot draw.  The rendered-site suite checks the drawing.
import {test} from "node:test";
import assert from "node:assert/strict";
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import typesetMath, {typesetter, TexError} from "../../_extensions/course/post-render/passes/typeset-math.mjs";
import {mathAlphanumerics, UnsupportedMathML} from "../../_extensions/course/post-render/native-mathml.mjs";
import {Site, runPasses} from "../../_extensions/course/post-render/pipeline.mjs";
import {Cache} from "../../_extensions/course/post-render/cache.mjs";
import {handMadeInventory} from "./hand-made-inventory.mjs";

const t = typesetter();
const mml = (tex, display = false) => t.mathml(tex, display);
/** The lspace of each <mo> with the given text, in order. */
const lspaces = (markup, op) => [...markup.matchAll(/<mo([^>]*)>([^<]*)<\/mo>/g)]
  .filter((m) => m[2] === op).map((m) => /lspace="([^"]*)"/.exec(m[1])[1]);

test("TeX's spaces: relations and binary operators spaced, none in a script or for a unary minus", () => {
  const out = mml("h_{t-1} = (-1, 1) + a");
  assert.deepEqual(lspaces(out, "="), ["0.2778em"], "a relation: a thick space before");
  assert.match(out, /<mo lspace="0.2778em" rspace="0em">=<\/mo><mo stretchy="false" lspace="0.2778em"/, "and after it, before the next atom");
  assert.deepEqual(lspaces(out, "−"), ["0em", "0em"], "no space around the minus in a subscript, nor the unary one after (");
  assert.deepEqual(lspaces(out, "+"), ["0.2222em"], "a binary operator: a medium space");
  assert.match(out, /<mo lspace="0.2222em" rspace="0em">\+<\/mo><mspace width="0.2222em"><\/mspace><mi>a<\/mi>/);
  assert.match(out, /<mo lspace="0em" rspace="0em">,<\/mo><mspace width="0.1667em"><\/mspace><mn>1<\/mn>/, "a thin space after a comma");
  assert.match(mml("2\\tanh x"), /<mn>2<\/mn><mspace width="0.1667em"><\/mspace><mi>tanh<\/mi>/, "a thin space before an operator name");
  assert.doesNotMatch(mml("x_{a+b}"), /mspace/, "no spaces in a script");
  assert.doesNotMatch(mml("a = b"), /data-mjx|xmlns/, "none of MathJax's own attributes");
});

test("variants as Unicode's mathematical letters; \\mathrm stays upright", () => {
  assert.match(mml("\\mathbb{R}^d"), /<mi>ℝ<\/mi>/);
  assert.match(mml("\\mathcal{L}_t"), /<mi>ℒ<\/mi>/);
  assert.match(mml("\\mathbf{W}\\mathbf{x}"), /<mi>𝐖<\/mi>/);
  assert.match(mml("\\mathrm{g}"), /<mi mathvariant="normal">g<\/mi>/);
  assert.doesNotMatch(mml("\\mathbb{R} \\mathcal{L}"), /mathvariant/);
  assert.equal(mathAlphanumerics("ABZ az09", "double-struck"), "𝔸𝔹ℤ 𝕒𝕫𝟘𝟡");
  assert.equal(mathAlphanumerics("h", "italic"), "ℎ");
  assert.equal(mathAlphanumerics("α", "bold"), "α", "a character with no letter of the variant is kept");
});

test("an aligned block: each cell aligned and spaced as the table says, each row a line high", () => {
  const out = mml("\\begin{aligned} a &= b \\\\ c &= d \\end{aligned}", true);
  const cells = [...out.matchAll(/<mtd columnalign="(\w+)" style="([^"]*)">/g)].map((m) => `${m[1]} | ${m[2]}`);
  assert.deepEqual(cells, ["right | text-align: -webkit-right; padding: 0em 0 0 0em", "left | text-align: -webkit-left; padding: 0em 0 0 0em",
    "right | text-align: -webkit-right; padding: 3pt 0 0 0em", "left | text-align: -webkit-left; padding: 3pt 0 0 0em"]);
  assert.equal((out.match(/<mtd[^>]*><mspace height="0.8em" depth="0.3em"><\/mspace>/g) || []).length, 4, "a strut in each cell");
  assert.doesNotMatch(out, /<mtable[^>]*(columnalign|rowspacing|columnspacing)/, "the table's own attributes go (written out per cell)");
});

test("accents close over their letter, primes on the line, big delimiters sized", () => {
  assert.match(mml("\\hat{y}_t"), /<mover accent="true"><mi>y<\/mi><mo[^>]*>ˆ<\/mo><\/mover>/);
  assert.match(mml("\\tilde{c}"), /<mover accent="true"><mi>c<\/mi><mo[^>]*>˜<\/mo><\/mover>/);
  assert.match(mml("\\tanh'(a)"), /<mrow><mi>tanh<\/mi><mo lspace="0em" rspace="0em">′<\/mo><\/mrow>/);
  assert.doesNotMatch(mml("h'"), /msup/);
  assert.match(mml("h'_t"), /<msub><mrow><mi>h<\/mi><mo[^>]*>′<\/mo><\/mrow><mi>t<\/mi><\/msub>/);
  assert.match(mml("\\big( x \\big)"), /<mo minsize="1.2em" maxsize="1.2em"[^>]*>\(<\/mo>/);
});

test("what MathML Core cannot draw stops the render, naming the page and the formula", async () => {
  assert.throws(() => mml("\\boxed{x}"), UnsupportedMathML);
  // the typeset-math pass on a small site with that page
  const dir = mkdtempSync(join(tmpdir(), "native-mathml-"));
  try {
    mkdirSync(join(dir, "m"));
    writeFileSync(join(dir, "m", "index.html"), '<html><head><link href="../site_libs/quarto-contrib/course-math/math.css" rel="stylesheet"></head>'
      + '<body><span class="course-tex inline">\\(\\cancel{x}\\)</span></body></html>');
    const site = new Site({dir, project: dir, cache: new Cache(null), quartoShare: null, inventory: handMadeInventory});
    await assert.rejects(runPasses(site, [typesetMath]),
      (e) => e instanceof TexError && /m\/index\.html: .*\\cancel\{x\}.*menclose/.test(e.message));
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
});
