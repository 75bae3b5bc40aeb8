// Quarto ships the whole Bootstrap Icons font (some 2,000 icons) with every page that shows one icon;
// the site's copy keeps only the icons its pages, scripts and stylesheets name (bi-<name>), cut from
// Quarto's own copy each time, so an icon a later render adds is never missing.  Quarto's scripts
// also name an icon by itself and build its class as `bi-${name}` (the search results'
// "file-richtext"): a quoted word in a script that is an icon's name counts too.
import {existsSync, readFileSync} from "node:fs";
import {join} from "node:path";
import {ContractError} from "../contract.mjs";
import {cutFontCached} from "../fonts.mjs";

const ICON_NAME = /\bbi-([a-z0-9]+(?:-[a-z0-9]+)*)/g;
const ICON_RULE = /\.bi-([a-z0-9-]+)::?before\s*\{\s*content:\s*"\\([0-9a-fA-F]+)"/g;
export const QUOTED_WORD = /["'`]([a-z0-9]+(?:-[a-z0-9]+)*)["'`]/g;

/** The icon names in the site's pages (as finished), its scripts and stylesheets (but the icons' own). */
export function iconNames(site, iconsCss) {
  const named = new Set();
  for (const page of site.pages) for (const m of page.html().matchAll(ICON_NAME)) named.add(m[1]);
  for (const {path, text} of site.files("", (n) => /\.(js|css)$/.test(n))) {
    if (path === iconsCss || (path.endsWith(".js") && !path.includes("site_libs"))) continue;
    for (const m of text.matchAll(ICON_NAME)) named.add(m[1]);
    if (path.endsWith(".js")) for (const m of text.matchAll(QUOTED_WORD)) named.add(m[1]);
  }
  return named;
}

export default {
  name: "icon-font",
  site: true,
  async apply(site) {
    const folder = join(site.dir, "site_libs", "bootstrap");
    const css = join(folder, "bootstrap-icons.css");
    // nothing to do only where the site has no page of the html format (Quarto's pages load Bootstrap Icons)
    if (!site.pages.some((p) => p.inventory?.format === "html")) return 0;
    if (!existsSync(css)) throw new ContractError(this.name, "site_libs/bootstrap", "bootstrap-icons.css (Bootstrap Icons, which Quarto's html pages load)");
    const original = site.quartoShare && join(site.quartoShare, "formats", "html", "bootstrap", "dist", "bootstrap-icons.woff");
    if (!original || !existsSync(original)) throw new ContractError(this.name, "Quarto's resources", "formats/html/bootstrap/dist/bootstrap-icons.woff");
    const codepoints = new Map([...readFileSync(css, "utf8").matchAll(ICON_RULE)].map((m) => [m[1], parseInt(m[2], 16)]));
    if (!codepoints.size) throw new ContractError(this.name, "site_libs/bootstrap/bootstrap-icons.css", '.bi-<name>::before { content: "\\XXXX" } rules');
    const keep = [...iconNames(site, css)].filter((n) => codepoints.has(n)).map((n) => codepoints.get(n)).sort((a, b) => a - b);
    site.write(join(folder, "bootstrap-icons.woff"), await cutFontCached(site.cache, this.name, original, keep));
    return keep.length;
  },
};
