// MathML that a browser draws itself (MathML Core: Chromium 109+, Firefox, Safari), from MathJax's
// internal tree of a TeX formula, with the TeX layout MathJax would give it written out, because
// MathML Core leaves out what MathJax's own MathML leans on:
//
// - TeX's spacing.  MathJax spaces atoms by their TeX class (Ord, Op, Bin, Rel, Open, ...: a minus
//   after "(" is unary, no space around "-" in a subscript); MathML Core spaces an <mo> by its
//   operator dictionary.  Every <mo> gets the space MathJax computes (lspace, rspace="0"), and any
//   other atom MathJax spaces gets an <mspace> before it.
// - mathvariant other than "normal" (\mathcal, \mathbb, \mathbf): the letters become Unicode's
//   mathematical alphanumerics (U+1D400...), which is what the font draws.
// - <mtable>'s columnalign, columnspacing and rowspacing (the aligned environment): each <mtd>
//   gets them as inline CSS (and its own columnalign, which Firefox and Safari read).
// - named lengths (thinmathspace...): em.
// - accents (\hat, \tilde): MathML Core sets one close over its base only when the <mover> says
//   accent="true" (MathJax takes it from the operator dictionary); and the spacing accent characters.
// - primes: a font's ′ is a raised mark already; as a superscript MathML Core would raise it again.
// - each table row at least a line high, as TeX's strut makes it.
// An element MathML Core cannot draw (menclose: \boxed, \cancel; maction; mlabeledtr: a \tag in a
// deck) is an error, so a formula never silently draws wrong; passes/typeset-math.mjs then names it.
import {createRequire} from "node:module";

const require = createRequire(import.meta.url);
const {SerializedMmlVisitor} = require("mathjax-full/js/core/MmlTree/SerializedMmlVisitor.js");

export class UnsupportedMathML extends Error {}

const NAMED_SPACE = {
  veryverythinmathspace: 1 / 18, verythinmathspace: 2 / 18, thinmathspace: 3 / 18, mediummathspace: 4 / 18,
  thickmathspace: 5 / 18, verythickmathspace: 6 / 18, veryverythickmathspace: 7 / 18,
};
const em = (x) => `${Number(x.toFixed(4))}em`;
const lengthEm = (value) => String(value).replace(/(-?)(\w+mathspace)/g, (all, sign, name) =>
  NAMED_SPACE[name] === undefined ? all : `${sign}${em(NAMED_SPACE[name])}`);

// TeX's ASCII accents as the spacing accents a font draws over a letter (MathJax's fonts remap them)
const ACCENT_CHAR = {"^": "\u02C6", "~": "\u02DC"};
const STRUT = '<mspace height="0.8em" depth="0.3em"></mspace>';
const UNSUPPORTED = new Set(["menclose", "maction", "mlabeledtr", "mglyph", "ms", "mfenced"]);
// elements whose children form a row (MathML's inferred mrow): an <mspace> may go between them
const ROW = new Set(["math", "mrow", "mstyle", "mtd", "msqrt", "mpadded", "mphantom", "merror", "TeXAtom"]);

// Unicode's mathematical alphanumerics: the offset of A, a and 0 for each variant, and the letters
// that sit elsewhere (the "holes" of U+1D400..., e.g. script B is U+212C).
const ALPHA = {
  bold: [0x1d400, 0x1d41a, 0x1d7ce], italic: [0x1d434, 0x1d44e, null], "bold-italic": [0x1d468, 0x1d482, 0x1d7ce],
  script: [0x1d49c, 0x1d4b6, null], "bold-script": [0x1d4d0, 0x1d4ea, 0x1d7ce], fraktur: [0x1d504, 0x1d51e, null],
  "double-struck": [0x1d538, 0x1d552, 0x1d7d8], "bold-fraktur": [0x1d56c, 0x1d586, 0x1d7ce],
  "sans-serif": [0x1d5a0, 0x1d5ba, 0x1d7e2], "bold-sans-serif": [0x1d5d4, 0x1d5ee, 0x1d7ec],
  "sans-serif-italic": [0x1d608, 0x1d622, 0x1d7e2], "sans-serif-bold-italic": [0x1d63c, 0x1d656, 0x1d7ec],
  monospace: [0x1d670, 0x1d68a, 0x1d7f6],
};
const HOLES = {
  italic: {h: 0x210e}, script: {B: 0x212c, E: 0x2130, F: 0x2131, H: 0x210b, I: 0x2110, L: 0x2112, M: 0x2133,
    R: 0x211b, e: 0x212f, g: 0x210a, o: 0x2134}, fraktur: {C: 0x212d, H: 0x210c, I: 0x2111, R: 0x211c, Z: 0x2128},
  "double-struck": {C: 0x2102, H: 0x210d, N: 0x2115, P: 0x2119, Q: 0x211a, R: 0x211d, Z: 0x2124},
};
// MathJax's own names for TeX's variants
const TEX_VARIANT = {"-tex-calligraphic": "script", "-tex-bold-calligraphic": "bold-script", "-tex-mathit": "italic",
  "-tex-oldstyle": "normal", "-tex-bold-oldstyle": "bold"};

/** `text` in mathematical alphanumerics of `variant` (characters it has no letter for are kept). */
export function mathAlphanumerics(text, variant) {
  const base = ALPHA[variant];
  if (!base) return text;
  return [...text].map((c) => {
    const hole = HOLES[variant]?.[c];
    if (hole) return String.fromCodePoint(hole);
    const code = c.codePointAt(0);
    if (c >= "A" && c <= "Z") return String.fromCodePoint(base[0] + code - 65);
    if (c >= "a" && c <= "z") return String.fromCodePoint(base[1] + code - 97);
    if (c >= "0" && c <= "9" && base[2]) return String.fromCodePoint(base[2] + code - 48);
    return c;
  }).join("");
}

/** MathJax's serializer, writing MathML Core with TeX's layout (see the top of this file). */
class NativeMathMLVisitor extends SerializedMmlVisitor {
  visitTree(node) {
    return super.visitTree(node).replace(/\n\s*/g, "");
  }

  visitDefault(node, space) {
    if (UNSUPPORTED.has(node.kind)) throw new UnsupportedMathML(`<${node.kind}> is not drawn by MathML Core`);
    const primed = this.primedScript(node);
    if (primed) return primed;
    const markup = super.visitDefault(node, space);
    // each row of a table at least a line of text high, as TeX's strut makes it (MathML Core's
    // rows are only as high as their content: "= b" would sit closer than "= (b)")
    return node.isKind("mtd") ? markup.replace(/^(\s*<mtd[^>]*>)/, `$1${STRUT}`) : markup;
  }

  /** h' as TeX draws it: a font's prime (U+2032) is a raised mark already, which MathML Core would
      raise again as a superscript; it follows its base on the line instead (null: not primed). */
  primedScript(node) {
    if (!node.isKind("msup") && !node.isKind("msubsup")) return null;
    const sup = node.childNodes[node.isKind("msup") ? 1 : 2];
    if (!sup?.isKind("mo") || !/^[\u2032-\u2034\u2057]+$/.test(sup.getText())) return null;
    const base = this.visitNode(node.childNodes[0], "");
    const primes = `<mo lspace="0em" rspace="0em">${sup.getText()}</mo>`;
    return node.isKind("msup") ? `<mrow>${base}${primes}</mrow>`
      : `<msub><mrow>${base}${primes}</mrow>${this.visitNode(node.childNodes[1], "")}</msub>`;
  }

  /** A child's markup, with the TeX space MathJax puts before it when it is not an operator. */
  visitNode(node, space) {
    const markup = super.visitNode(node, space);
    if (node.kind === "text" || node.isKind("mo") || node.isEmbellished || !node.parent) return markup;
    const before = node.texSpacing?.();
    if (!before) return markup;
    const gap = `<mspace width="${lengthEm(before)}"></mspace>`;
    const parent = node.parent.isInferred ? node.parent.parent : node.parent;
    return space + (ROW.has(parent?.kind) ? gap + markup.trimStart() : `<mrow>${gap}${markup.trimStart()}</mrow>`);
  }

  visitTextNode(node) {
    const variant = this.variant(node.parent);
    let text = variant ? mathAlphanumerics(node.getText(), variant) : node.getText();
    if (this.isAccent(node.parent)) text = ACCENT_CHAR[text] ?? text;
    return this.quoteHTML(text);
  }

  /** An <mo> drawn as an accent over or under its base. */
  isAccent(mo) {
    if (!mo?.isKind("mo")) return false;
    let child = mo, script = mo.parent;
    while (script && script.isInferred) [child, script] = [script, script.parent];
    if (!script || !["mover", "munder", "munderover"].some((k) => script.isKind(k)) || script.childNodes[0] === child) return false;
    return script.attributes.get("accent") === true || script.attributes.get("accentunder") === true;
  }

  /** The page is UTF-8: only the HTML specials are escaped (MathJax's own escapes all non-ASCII). */
  quoteHTML(value) {
    return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  /** The mathvariant a token's text is drawn in by conversion (null: the browser draws it). */
  variant(token) {
    const explicit = token?.attributes.getExplicit("mathvariant");
    if (!explicit) return null;
    const variant = TEX_VARIANT[explicit] ?? explicit;
    if (variant === "normal") return null;
    // a one-letter <mi> is italic already
    if (variant === "italic" && token.isKind("mi") && [...token.getText()].length === 1) return null;
    return ALPHA[variant] ? variant : null;
  }

  getDataAttributes() {
    return {};   // MathJax's data-mjx-* (its TeX classes): written out as spaces instead
  }

  getAttributes(node) {
    const attributes = {...node.attributes.getAllAttributes()};
    delete attributes.xmlns;
    if (attributes.mathvariant !== undefined) {
      const variant = TEX_VARIANT[attributes.mathvariant] ?? attributes.mathvariant;
      if (variant === "normal" && node.isKind("mi")) attributes.mathvariant = "normal";
      else delete attributes.mathvariant;
    }
    for (const name of ["width", "height", "depth", "lspace", "rspace", "voffset", "minsize", "maxsize"]) {
      if (attributes[name] !== undefined) attributes[name] = lengthEm(attributes[name]);
    }
    if (node.isKind("mo")) {
      // the operator's TeX space: on its left (MathJax's), none on its right; an embellished
      // operator (a \sum with limits) is spaced as a whole, by its core
      const outer = this.embellishedTop(node);
      const explicit = node.attributes.isSet("lspace") || node.attributes.isSet("rspace");
      if (!explicit) {
        attributes.lspace = lengthEm(outer.texSpacing?.() || "0em");
        attributes.rspace = "0em";
      }
    }
    if (node.isKind("mover") || node.isKind("munder") || node.isKind("munderover")) {
      // an accent (\hat, \tilde) sits close over its base only when said so: MathML Core does not
      // take it from the operator dictionary, as MathJax does
      for (const name of ["accent", "accentunder"]) if (node.attributes.get(name) === true) attributes[name] = "true";
    }
    let style = attributes.style ? [attributes.style] : [];
    if (node.isKind("mtable")) {
      for (const name of ["columnalign", "columnspacing", "rowspacing", "columnwidth", "width", "frame", "framespacing", "equalrows", "equalcolumns"]) delete attributes[name];
    }
    if (node.isKind("mtd")) {
      const cell = this.cellStyle(node);
      attributes.columnalign = cell.align;
      style = style.concat(cell.style);
    }
    if (style.length) attributes.style = style.join("; ");
    const list = Object.entries(attributes).filter(([, v]) => v !== undefined)
      .map(([name, value]) => `${name}="${this.quoteHTML(String(value))}"`);
    return list.length ? " " + list.join(" ") : "";
  }

  /** The outermost embellished operator whose core is `mo` (itself, if none). */
  embellishedTop(mo) {
    let top = mo;
    for (let p = mo.parent; p && p.isEmbellished && p.coreMO?.() === mo; p = p.parent) if (!p.isInferred) top = p;
    return top;
  }

  /** An <mtd>'s alignment and padding, from its table's columnalign, columnspacing and rowspacing. */
  cellStyle(td) {
    const row = td.parent.isInferred ? td.parent.parent : td.parent;
    const table = row.parent.isInferred ? row.parent.parent : row.parent;
    const column = row.childNodes.filter((c) => c.isKind("mtd")).indexOf(td);
    const rowIndex = table.childNodes.filter((c) => c.isKind("mtr")).indexOf(row);
    const list = (name) => String(table.attributes.get(name) ?? "").trim().split(/\s+/).filter(Boolean);
    const pick = (values, i) => values.length ? values[Math.min(i, values.length - 1)] : null;
    const align = td.attributes.getExplicit("columnalign") ?? row.attributes.getExplicit("columnalign") ?? pick(list("columnalign"), column) ?? "center";
    const columnGap = column > 0 ? lengthEm(pick(list("columnspacing"), column - 1) ?? "0.8em") : "0em";
    const rowGap = rowIndex > 0 ? lengthEm(pick(list("rowspacing"), rowIndex - 1) ?? "1ex") : "0em";
    // Chromium aligns a cell's math box by the -webkit- values only (its own default is
    // -webkit-center); Firefox and Safari read MathML's columnalign on the cell
    return {align, style: [`text-align: -webkit-${align}`, `padding: ${rowGap} 0 0 ${columnGap}`]};
  }
}

/** Native MathML for MathJax's internal tree `root` (a compiled MathItem's root). */
export function nativeMathML(root) {
  root.setTeXclass(null);
  return new NativeMathMLVisitor().visitTree(root);
}
