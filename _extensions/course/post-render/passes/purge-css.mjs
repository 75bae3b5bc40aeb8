// The pages load only the CSS rules the site can use.  Quarto's Bootstrap stylesheet is all of
// Bootstrap 5 and Quarto's rules for every feature it has (dashboards, listings, grids, ...), which
// every page must fetch and parse before it paints; the Bootstrap Icons stylesheet names some 2,000
// icons for the few the site shows.  PurgeCSS keeps each rule whose selector's classes, ids and
// elements appear in the site's pages or in the scripts they load (Bootstrap's and Quarto's scripts
// name the classes they add, such as "show", "collapsing", "headroom--unpinned"; the demos' modules
// and their OJS source name theirs), and drops the rest.  The result goes beside the original as
// <name>.used.css (bootstrap-<hash>.used.min.css), and the pages link to it; Quarto's original stays,
// so a later render of one page purges again from it.  Last: it reads the pages as finished.
import {existsSync, readdirSync, readFileSync} from "node:fs";
import {basename, join, relative} from "node:path";
import {PurgeCSS} from "purgecss";
import {Cache} from "../cache.mjs";
import {ContractError} from "../contract.mjs";
import {QUOTED_WORD} from "./icon-font.mjs";
import {dependency} from "../dependencies.mjs";

// classes Quarto's scripts add at run time, whose rules must survive the purge (quarto-dependencies.json)
const ADDED_BY_SCRIPTS = dependency("script-added-classes").classes;

const SHEETS_DIR = join("site_libs", "bootstrap");
// which stylesheets are purged: Quarto's Bootstrap (light and dark) and Bootstrap Icons' names
export const PURGED = /^bootstrap(-dark)?-[0-9a-f]+\.min\.css$|^bootstrap-icons\.css$/;

/** The words a script may name a class with; a quoted word also as bi-<word> (as for the icon font). */
export function scriptWords(text) {
  const words = text.match(/[A-Za-z0-9_-]+/g) ?? [];
  for (const m of text.matchAll(QUOTED_WORD)) words.push(`bi-${m[1]}`);
  return words;
}
const OPTIONS = {keyframes: true, fontFace: false, variables: false, rejected: false,
  extractors: [{extractor: scriptWords, extensions: ["js"]}]};

/** `bootstrap-abc.min.css` -> `bootstrap-abc.used.min.css`; `bootstrap-icons.css` -> `bootstrap-icons.used.css` */
export const usedName = (name) => name.replace(/(\.min)?\.css$/, (ext) => `.used${ext}`);

/** What may name a class: every page as finished, every script the site serves, and the demos' OJS source. */
export function siteContent(site) {
  const content = site.pages.map((p) => ({raw: p.html(), extension: "html", file: p.rel}));
  for (const {path, text} of site.files("", (n) => /\.m?js$/.test(n))) content.push({raw: text, extension: "js", file: relative(site.dir, path)});
  const sources = new Map(site.files("", (n) => /\.ojs-source-[0-9a-f]+\.txt$/.test(n)).map(({path, text}) => [relative(site.dir, path), text]));
  for (const page of site.pages) for (const [name, text] of page.besides) sources.set(join(relative(site.dir, page.dir), name), text);
  for (const [file, text] of sources) content.push({raw: Buffer.from(text.trim(), "base64").toString("utf8"), extension: "js", file});
  return content.sort((a, b) => (a.file < b.file ? -1 : 1));
}

export default {
  name: "purge-css",
  site: true,
  async apply(site) {
    const dir = join(site.dir, SHEETS_DIR);
    const sheets = existsSync(dir) ? readdirSync(dir).filter((n) => PURGED.test(n)).sort() : [];
    // nothing to do only where the site has no page of the html format
    if (!site.pages.some((p) => p.inventory?.format === "html")) return 0;
    for (const [pattern, what] of [[/^bootstrap-[0-9a-f]+\.min\.css$/, "bootstrap-<hash>.min.css"], [/^bootstrap-icons\.css$/, "bootstrap-icons.css"]]) {
      if (!sheets.some((n) => pattern.test(n))) throw new ContractError(this.name, SHEETS_DIR, `Quarto's stylesheet ${what}`);
    }
    // the pages link to the purged copies
    for (const page of site.pages) {
      page.$("link[href]").each((i, el) => {
        const href = page.$(el).attr("href");
        const name = href.split("/").pop();
        if (sheets.includes(name)) page.$(el).attr("href", href.slice(0, -name.length) + usedName(name));
      });
    }
    const content = siteContent(site);
    const css = sheets.map((n) => readFileSync(join(dir, n), "utf8"));
    const key = Cache.key(OPTIONS, scriptWords.toString(), sheets, css, content.map((c) => [c.file, c.raw]));
    const used = await site.cache.get(this.name, key, async () => {
      const results = await new PurgeCSS().purge({content: content.map(({raw, extension}) => ({raw, extension})),
        css: css.map((raw) => ({raw})), ...OPTIONS});
      return Object.fromEntries(results.map((r, i) => [usedName(sheets[i]), `/* ${sheets[i]}: the rules the site uses (_extensions/course/post-render/passes/purge-css.mjs) */\n${r.css}`]));
    });
    for (const [name, text] of Object.entries(used)) site.write(join(dir, name), text);
    const light = sheets.findIndex((n) => /^bootstrap-[0-9a-f]+\.min\.css$/.test(n));
    for (const cls of ADDED_BY_SCRIPTS) {
      const rule = new RegExp(`\\.${cls}(?![\\w-])`);
      if (!rule.test(css[light])) throw new ContractError(this.name, SHEETS_DIR, `a rule for .${cls} in Quarto's stylesheet ${sheets[light]} (script-added-classes)`);
      if (!rule.test(used[usedName(sheets[light])])) throw new ContractError(this.name, SHEETS_DIR, `.${cls}'s rule kept (a class Quarto's scripts add: script-added-classes), as no page or script names it now`);
    }
    return sheets.length;
  },
};
