// The icon fonts asked for while the page is still short (./icon-fonts-early.js), and
// AnchorJS's baseline style in the head from the start: the rules its own script would insert (taken
// from the site's anchor.min.js), before the page's stylesheets as AnchorJS puts them; finding it,
// the script adds none, and its @font-face is known before the first layout.
import {readFileSync, existsSync} from "node:fs";
import {join} from "node:path";
import {ContractError, expectSome} from "../contract.mjs";
import {pageScript} from "../page-scripts.mjs";

const ANCHOR_RULE = /\.sheet\.insertRule\((["'])(.*?)\1,\w+\.sheet\.cssRules\.length\)/g;
const rules = new Map();

/** The CSS rules AnchorJS inserts, from the site's anchor.min.js. */
export function anchorRules(siteDir) {
  if (!rules.has(siteDir)) {
    const js = join(siteDir, "site_libs", "quarto-html", "anchor.min.js");
    const found = existsSync(js) ? [...readFileSync(js, "utf8").matchAll(ANCHOR_RULE)].map((m) => m[2]) : [];
    if (!found.some((r) => r.startsWith("@font-face")))
      throw new ContractError("icon-fonts-early", "site_libs/quarto-html/anchor.min.js", "AnchorJS's inserted rules (an @font-face among them)");
    rules.set(siteDir, found);
  }
  return rules.get(siteDir);
}

export default {
  name: "icon-fonts-early",
  // every page of the html format (its inventory says which)
  targets: (page) => !page.isDeck,
  apply(page, site) {
    const {$} = page;
    expectSome(this.name, page, 'head > script[src$="/anchor.min.js"]', '<script src=".../anchor.min.js">');
    expectSome(this.name, page, 'head > link[href$="/bootstrap-icons.css"]', '<link href=".../bootstrap-icons.css">');
    const anchor = anchorRules(site.dir);
    const fonts = ["bootstrap-icons", ...anchor.filter((r) => r.startsWith("@font-face")).flatMap((r) => [...r.matchAll(/font-family:\s*([\w-]+)/g)].map((m) => m[1]))];
    $("head").append(page.script("icon-fonts-early", pageScript("icon-fonts-early"), {data: {fonts}}));
    expectSome(this.name, page, 'head > link[rel="stylesheet"], head > style', "a stylesheet in the head").first()
      .before(`<style class="anchorjs">\n${anchor.join("\n")}\n</style>\n`);
    return 2;
  },
};
