// The font the formulas are drawn in: STIX Two Math (SIL Open Font License, npm @fontsource/stix-two-math),
// cut to the characters the site's formulas use.  A browser draws MathML well only in a font with an
// OpenType MATH table (the sizes of fractions and scripts, the larger and stretched brackets), which
// phones do not have; whole, it is 370 KB.  The cut keeps the MATH table's variants of those
// characters and the italic letters a browser draws a one-letter <mi> in; it goes to
// site_libs/quarto-contrib/course-math/course-math.woff with the licence beside it (math.css names the font, and
// typeset-math.mjs asks for it in the head).  Every page of the output folder counts (a render of one
// page keeps the others' characters).
import {existsSync, readFileSync} from "node:fs";
import {dirname, join, resolve} from "node:path";
import {fileURLToPath} from "node:url";
import {ContractError} from "../contract.mjs";
import {cutFontCached} from "../fonts.mjs";
import {MATH_FONT} from "./typeset-math.mjs";
import {expectCount} from "../inventory.mjs";

const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..", "node_modules", "@fontsource", "stix-two-math");
export const ORIGINAL = join(PACKAGE, "files", "stix-two-math-latin-400-normal.woff");
const ITALIC_SPECIAL = {h: 0x210e, "ı": 0x1d6a4, "ȷ": 0x1d6a5, "∇": 0x1d6fb, "∂": 0x1d715, "ϵ": 0x1d716,
  "ϑ": 0x1d717, "ϰ": 0x1d718, "ϕ": 0x1d719, "ϱ": 0x1d71a, "ϖ": 0x1d71b};

/** MathML Core's italic mapping of one character (itself where it has none). */
export function italic(char) {
  const code = char.codePointAt(0);
  if (char in ITALIC_SPECIAL) return String.fromCodePoint(ITALIC_SPECIAL[char]);
  if (char >= "A" && char <= "Z") return String.fromCodePoint(0x1d434 + code - 0x41);
  if (char >= "a" && char <= "z") return String.fromCodePoint(0x1d44e + code - 0x61);
  if (code >= 0x391 && code <= 0x3a9) return String.fromCodePoint(0x1d6e2 + code - 0x391);
  if (code >= 0x3b1 && code <= 0x3c9) return String.fromCodePoint(0x1d6fc + code - 0x3b1);
  return char;
}

/** The characters one page's formulas draw. */
export function formulaCharacters(page) {
  const {$} = page;
  const chars = new Set();
  $("math").each((i, el) => {
    for (const c of $(el).text()) chars.add(c);
    // a one-letter <mi> without mathvariant="normal": the browser draws its italic form (MathML Core's math-auto)
    $(el).find("mi:not([mathvariant])").each((j, mi) => {
      const text = [...$(mi).text()];
      if (text.length === 1) chars.add(italic(text[0]));
    });
    if ($(el).find("msqrt, mroot").length) chars.add("\u221a");   // the radical sign, drawn from the font
  });
  for (const c of ["\n", "\t", "\r"]) chars.delete(c);
  return chars;
}

export default {
  name: "math-font",
  site: true,
  async apply(site) {
    // every formula the authors wrote is drawn as MathML by now (typeset-math.mjs), and no other
    const counted = site.pages.filter((p) => p.inventory);
    const expected = counted.reduce((n, p) => n + p.inventory.formulas, 0);
    if (!expected) return 0;
    expectCount(this.name, "the site's pages", expected, counted.reduce((n, p) => n + p.$("math").length, 0), "<math> (typeset by typeset-math)", "one per formula the pages' authors wrote");
    const chars = new Set(site.pages.flatMap((p) => [...formulaCharacters(p)]));
    if (!existsSync(ORIGINAL)) throw new ContractError(this.name, "node_modules/@fontsource/stix-two-math", "the font file (run `npm ci`: scripts/setup.sh does)");
    const keep = [...chars].map((c) => c.codePointAt(0)).sort((a, b) => a - b);
    site.write(join(site.dir, MATH_FONT), await cutFontCached(site.cache, this.name, ORIGINAL, keep));
    site.write(join(site.dir, dirname(MATH_FONT), "LICENSE"), readFileSync(join(PACKAGE, "LICENSE")));
    return keep.length;
  },
};
