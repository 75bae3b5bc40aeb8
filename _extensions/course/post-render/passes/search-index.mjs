// The site's search index (search.json, which Quarto writes from each page's HTML before the
// post-render) reads as text: each formula, there as the TeX that typeset-math.mjs typesets later,
// becomes plain Unicode (../search-text.mjs), and the demos' OJS source (hidden, or folded under "The
// plotting cell"), which Quarto indexes as page text, is taken out of the results, so that a search
// for "gradient" shows no Plot options.  Runs first, while the pages still hold that source.  (The
// deck is left out of the index by its own front matter, `search: false`.)
import {existsSync, readFileSync} from "node:fs";
import {join} from "node:path";
import {ContractError} from "../contract.mjs";
import {searchableText} from "../search-text.mjs";

const escape = (s) => s.replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The text of each OJS cell's source on a page, as Quarto's index holds it (textContent with < and > escaped), longest first. */
export function ojsSources(page) {
  return page.$("div.sourceCode.cell-code > pre.sourceCode.js > code").toArray()
    .map((el) => escape(page.$(el).text())).filter((t) => t.trim()).sort((a, b) => b.length - a.length);
}

/** An entry's text without the given code texts, and without the blank lines they leave. */
export function withoutCode(text, codes) {
  let out = text;
  for (const code of codes) out = out.split(code).join("\n");
  return out === text ? text : out.replace(/\n\s*\n(\s*\n)*/g, "\n").trim();
}

export default {
  name: "search-index",
  site: true,
  apply(site) {
    const file = join(site.dir, "search.json");
    if (!existsSync(file)) return 0;                 // a render of one page writes no index
    const entries = JSON.parse(readFileSync(file, "utf8"));
    const byPage = new Map(site.pages.map((p) => [p.rel, p]));
    const codes = new Map([...byPage].map(([rel, page]) => [rel, ojsSources(page)]));
    const stripped = new Set();
    let formulas = 0;
    const out = entries.map((e) => {
      const page = e.href.split("#")[0];
      const text = withoutCode(e.text ?? "", codes.get(page) ?? []);
      if (text !== (e.text ?? "")) stripped.add(page);
      return Object.fromEntries(Object.entries({...e, text}).map(([k, v]) => {
        if (typeof v !== "string" || k === "href" || k === "objectID") return [k, v];
        const plain = searchableText(v);
        if (plain !== v) formulas++;
        return [k, plain];
      }));
    });
    // Quarto indexes a page's hidden OJS source and its formulas' TeX: where it no longer does, this pass has nothing to do
    for (const [rel, code] of codes) {
      const indexed = entries.some((e) => e.href.split("#")[0] === rel);
      if (code.length && indexed && !stripped.has(rel)) throw new ContractError(this.name, `search.json (${rel})`, "OJS cell source in the entries of a page with OJS cells");
    }
    if (site.pages.some((p) => !p.isDeck && p.$("span.math").length) && formulas === 0)
      throw new ContractError(this.name, "search.json", "formula TeX (\\( \\) or \\[ \\]) though the pages have formulas");
    site.write(file, JSON.stringify(out, null, 2));
    return formulas + stripped.size;
  },
};
