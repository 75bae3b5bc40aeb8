// A figure's <img> as Quarto writes it has no size, so the text below it moves when it arrives, and
// every figure is fetched at load although the first sits a screen or more down the page.  Each SVG
// figure gets the width and height its file gives (the size the browser would find, so nothing
// moves once it loads) and is fetched as it nears the screen (printing loads them all).
import {existsSync, readFileSync} from "node:fs";
import {join} from "node:path";
import {ContractError, expectSome} from "../contract.mjs";

const SVG_ROOT = /<svg\b[^>]*>/s;
const SVG_LENGTH = /^\s*([0-9.]+)\s*(px|pt)?\s*$/;

/** The CSS pixel size [width, height] of an SVG file's root (its width and height, else its viewBox), or null. */
export function svgSize(text) {
  const root = SVG_ROOT.exec(text.slice(0, 4000));
  if (!root) return null;
  const attr = (name) => new RegExp(`\\s${name}="([^"]*)"`).exec(root[0])?.[1];
  const size = [];
  for (const name of ["width", "height"]) {
    const m = SVG_LENGTH.exec(attr(name) ?? "");
    if (!m) break;
    size.push(Number(m[1]) * (m[2] === "pt" ? 4 / 3 : 1));
  }
  if (size.length < 2) {
    const box = (attr("viewBox") ?? "").replace(/,/g, " ").trim().split(/\s+/);
    if (box.length !== 4) return null;
    size.splice(0, 2, Number(box[2]), Number(box[3]));
  }
  return size.map(Math.round);
}

export default {
  name: "sized-lazy-images",
  // a page with SVG figures (the course draws its figures as SVG)
  targets: (page) => !page.isDeck && page.$(".quarto-figure img[src$=\".svg\"]").length > 0,
  apply(page) {
    const {$} = page;
    let sized = 0;
    expectSome(this.name, page, "img.figure-img[src]", "a figure's <img class=\"figure-img\">").each((i, el) => {
      const src = $(el).attr("src");
      if (!/\.svg$/.test(src) || src.includes("://") || ["width", "height", "loading"].some((a) => $(el).attr(a) !== undefined)) return;
      const file = join(page.dir, decodeURI(src));
      const size = existsSync(file) ? svgSize(readFileSync(file, "utf8")) : null;
      if (!size) throw new ContractError(this.name, page.rel, `a readable size in the figure ${src}`);
      $(el).attr({width: String(size[0]), height: String(size[1]), loading: "lazy", decoding: "async"});
      sized++;
    });
    return sized;
  },
};
