// Quarto's page head loads its libraries (bootstrap, popper, tippy, search, clipboard, headroom,
// anchor, quarto-nav) as plain <script src> tags, each of which holds the first paint until it has
// loaded and run, though none of them draws the text: they wire up the navbar, search, tooltips and
// copy buttons from DOMContentLoaded handlers.  Deferred, they still run before DOMContentLoaded,
// in the order they ran before: the classic scripts in their order, then Quarto's module scripts
// (which a browser defers already) moved after them.
import {expectSome} from "../contract.mjs";

export default {
  name: "deferred-head-scripts",
  targets: (page) => !page.isDeck,
  apply(page) {
    const {$} = page;
    const scripts = expectSome(this.name, page, "head > script[src]", "<script src> in the head").toArray();
    const classic = scripts.filter((el) => !("defer" in el.attribs) && !("async" in el.attribs) && el.attribs.type !== "module");
    if (!classic.length) return 0;
    const last = classic[classic.length - 1];
    const modules = scripts.filter((el) => el.attribs.type === "module" && scripts.indexOf(el) < scripts.indexOf(last));
    for (const el of classic) $(el).attr("defer", "");
    $(last).after(modules.map((el) => $(el).remove()));
    return classic.length;
  },
};
