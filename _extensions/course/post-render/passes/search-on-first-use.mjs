// Quarto's navbar search (an overlay) loads its three scripts when a reader first reaches for it
// (./search-on-first-use.js); until then the page carries the search button as
// autocomplete-js draws it, with the icon path read from the site's own autocomplete.umd.js.
import {readFileSync, existsSync} from "node:fs";
import {join} from "node:path";
import {ContractError, expectMatch, expectSome} from "../contract.mjs";
import {pageScript} from "../page-scripts.mjs";
import {checkDependencies} from "../dependencies.mjs";

const SCRIPTS = ["autocomplete.umd", "fuse.min", "quarto-search"];
// where autocomplete-js builds its search icon (aa-SubmitIcon)
const SUBMIT_ICON_PATH = /"aa-SubmitIcon".{0,600}?setAttribute\("d",\s*"([^"]+)"\)/s;
const iconPaths = new Map();

/** The path autocomplete-js draws its search icon with, from `site`'s autocomplete.umd.js. */
export function searchIconPath(siteDir) {
  if (!iconPaths.has(siteDir)) {
    const js = join(siteDir, "site_libs", "quarto-search", "autocomplete.umd.js");
    const m = existsSync(js) ? SUBMIT_ICON_PATH.exec(readFileSync(js, "utf8")) : null;
    if (!m) throw new ContractError("search-on-first-use", "site_libs/quarto-search/autocomplete.umd.js", 'the search icon\'s path ("aa-SubmitIcon" ... setAttribute("d", ...))');
    iconPaths.set(siteDir, m[1]);
  }
  return iconPaths.get(siteDir);
}

/** The markup autocomplete-js draws for the overlay's button (what the page's CSS styles), marked as a stand-in. */
export function searchStandin(iconPath) {
  return '<div class="aa-Autocomplete search-standin"><button type="button" class="aa-DetachedSearchButton" title="Search" aria-label="Search">'
    + '<div class="aa-DetachedSearchButtonIcon"><svg class="aa-SubmitIcon" viewBox="0 0 24 24" width="20" height="20" fill="currentColor">'
    + `<path d="${iconPath}"></path></svg></div><div class="aa-DetachedSearchButtonPlaceholder"></div>`
    + '<div class="aa-DetachedSearchButtonQuery"></div></button></div>';
}

export default {
  name: "search-on-first-use",
  // every page of the html format (its inventory says which)
  targets: (page) => !page.isDeck,
  apply(page, site) {
    const {$} = page;
    const tags = SCRIPTS.map((name) => expectSome(this.name, page, `head > script[src$="/quarto-search/${name}.js"]`, `<script src=".../quarto-search/${name}.js">`));
    const box = expectSome(this.name, page, "div#quarto-search:empty", 'the empty search box <div id="quarto-search">');
    const options = JSON.parse(expectSome(this.name, page, "script#quarto-search-options", "the search's options <script id=\"quarto-search-options\">").text());
    expectMatch(this.name, page, options.type === "overlay" && options.location === "navbar",
      `search settings type: overlay and location: navbar (the site's are ${options.type}/${options.location}; this pass draws the overlay's button)`);
    tags[0].before(page.script("search-on-first-use", pageScript("search-on-first-use"), {data: {
      sources: tags.map((t) => t.attr("src")), keys: options["keyboard-shortcut"] ?? [],
    }}));
    for (const t of tags) t.remove();
    box.attr("class", "type-overlay").html(searchStandin(searchIconPath(site.dir)));
    // window.quartoOpenSearch, which the page script calls once the search has loaded (search-open)
    checkDependencies(this.name, page, site);
    return 2;
  },
};
