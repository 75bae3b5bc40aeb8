// The site's search index (search.json, which Quarto writes from each page's HTML before the
// post-render) reads as text: each formula, there as the TeX that typeset-math.mjs typesets later,
// becomes plain Unicode (../search-text.mjs), and the demos' OJS source (hidden, or folded under "The
// plotting cell"), which Quarto indexes as page text, is taken out of the results, so that a search
// for "gradient" shows no Plot options.  Runs first, while the pages still hold that source.  (The
// deck is left out of the index by its own front matter, `search: false`.)
import {existsSync, readFileSync} from "node:fs";
import {join} from "node:path";
import {ContractError} from "../contract.mjs";
import {expectCount} from "../inventory.mjs";
import {searchableText} from "../search-text.mjs";

const escape = (s) => s.replace(/</g, "&lt;").replace(/>/g, "&gt;");

// where Quarto writes an OJS cell's source (hidden or shown)
const OJS_SOURCE = "div.sourceCode.cell-code > pre.sourceCode.js > code";

/** The number of cells (<div class="cell">) holding OJS source on a page. */
const ojsCells = (page) => new Set(page.$(OJS_SOURCE).toArray().map((el) => page.$(el).closest("div.cell")[0]).filter(Boolean)).size;

/** The text of each OJS cell's source on a page, as Quarto's index holds it (textContent with < and > escaped), longest first. */
export function ojsSources(page) {
  return page.$(OJS_SOURCE).toArray()
    .map((el) => escape(page.$(el).text())).filter((t) => t.trim()).sort((a, b) => b.length - a.length);
}

/** An entry's text without the given code texts, and without the blank lines they leave. */
export function withoutCode(text, codes) {
  let out = text;
  for (const code of codes) out = out.split(code).join("\n");
  return out === text ? text : out.replace(/\n\s*\n(\s*\n)*/g, "\n").trim();
}

const TEX = /\\\(|\\\[/g;
const texCount = (v) => (typeof v === "string" ? v.match(TEX)?.length ?? 0 : 0);

export default {
  name: "search-index",
  site: true,
  apply(site) {
    const file = join(site.dir, "search.json");
    // the pages this render wrote that are in the index (front matter search: false keeps a page out)
    const indexed = site.pages.filter((p) => !p.finished && p.inventory?.search && p.inventory.format === "html");
    const toDo = indexed.filter((p) => p.inventory.formulas + p.inventory.ojs_cells > 0);
    if (!existsSync(file)) {
      // a render of one page may write no index; a render of every page writes one
      if (toDo.length && process.env.QUARTO_PROJECT_RENDER_ALL) throw new ContractError(this.name, "the site", "search.json (Quarto's search index)");
      return 0;
    }
    const entries = JSON.parse(readFileSync(file, "utf8"));
    const codes = new Map(site.pages.map((p) => [p.rel, ojsSources(p)]));
    // what each page's entries hold, once: Quarto's entry for a page repeats its first section's text
    const tex = new Map(), stripped = new Map(), seen = new Set();
    const out = entries.map((e) => {
      const page = e.href.split("#")[0];
      const codesOf = codes.get(page) ?? [];
      const text = withoutCode(e.text ?? "", codesOf);
      if (!seen.has(`${page}\0${e.text}`)) {
        seen.add(`${page}\0${e.text}`);
        stripped.set(page, (stripped.get(page) ?? 0) + codesOf.filter((c) => (e.text ?? "").includes(c)).length);
        tex.set(page, (tex.get(page) ?? 0) + texCount(e.text));
      }
      return Object.fromEntries(Object.entries(e).map(([k, v]) => {
        if (typeof v !== "string" || k === "href" || k === "objectID") return [k, v];
        return [k, searchableText(k === "text" ? text : v)];
      }));
    });
    // Quarto indexes each formula's TeX and each OJS cell's source as page text: every one the author
    // wrote must be found there and taken out (a formula made text, a cell's source dropped)
    let changed = 0;
    for (const page of toDo) {
      const where = `search.json (${page.rel})`;
      expectCount(this.name, where, page.inventory.formulas, tex.get(page.rel) ?? 0, "a formula's TeX between \\( \\) or \\[ \\] in the entries' text",
        "one per formula the author wrote");
      const sources = codes.get(page.rel);
      if (page.inventory.ojs_cells) {
        expectCount(this.name, where, page.inventory.ojs_cells, ojsCells(page), `an OJS cell's source ${OJS_SOURCE} in <div class="cell">`, "one per ```{ojs} cell the author wrote");
        expectCount(this.name, where, sources.length, stripped.get(page.rel) ?? 0, "each OJS source block of the page in the entries' text", "every block of the cells' source");
      }
      changed += page.inventory.formulas + sources.length;
    }
    site.write(file, JSON.stringify(out, null, 2));
    return changed;
  },
};
