// Quarto's page head loads its libraries (bootstrap, popper, tippy, search, clipboard, headroom,
// anchor, quarto-nav) as plain <script src> tags, each of which holds the first paint until it has
// loaded and run, though none of them draws the text: they wire up the navbar, search, tooltips and
// copy buttons from DOMContentLoaded handlers.  Deferred, they still run before DOMContentLoaded,
// in the order they ran before: the classic scripts in their order, then Quarto's module scripts
// (which a browser defers already) moved after them.
import {ContractError, expectSome} from "../contract.mjs";
import {dependency} from "../dependencies.mjs";

// the libraries this pass knows it may defer, and the globals they define (quarto-dependencies.json)
const {scripts: KNOWN, globals: GLOBALS} = dependency("head-scripts");
const USES_GLOBAL = new RegExp(`\\b(?:window\\.)?(?:${GLOBALS.join("|")})\\b\\s*[.(]`);

export default {
  name: "deferred-head-scripts",
  // every page of the html format (its inventory says which)
  targets: (page) => !page.isDeck,
  apply(page) {
    const {$} = page;
    const scripts = expectSome(this.name, page, "head > script[src]", "<script src> in the head").toArray();
    const classic = scripts.filter((el) => !("defer" in el.attribs) && !("async" in el.attribs) && el.attribs.type !== "module");
    if (!classic.length) return 0;
    // a library the course does not know might have to run before the page paints
    for (const el of classic) {
      const name = el.attribs.src.split("/").pop().split("?")[0];
      if (!KNOWN.includes(name)) throw new ContractError(this.name, page.rel, `only Quarto's known libraries as <script src> in the head (head-scripts: ${KNOWN.join(", ")})`, `<script src="${el.attribs.src}">`);
    }
    // an inline script of the head that uses a library as it is read would run before the deferred library
    const inline = $("head > script:not([src])").filter((i, el) => !el.attribs.type || /javascript/.test(el.attribs.type))
      .filter((i, el) => USES_GLOBAL.test($(el).text()));
    if (inline.length) throw new ContractError(this.name, page.rel, `no inline head script using ${GLOBALS.join("/")} before DOMContentLoaded (bootstrap-global)`, `<script>${inline.first().text().slice(0, 60)}</script>`);
    const last = classic[classic.length - 1];
    const modules = scripts.filter((el) => el.attribs.type === "module" && scripts.indexOf(el) < scripts.indexOf(last));
    for (const el of classic) $(el).attr("defer", "");
    $(last).after(modules.map((el) => $(el).remove()));
    return classic.length;
  },
};
