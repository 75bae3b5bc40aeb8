// Hover previews built when their link is first pointed at or focused (./tippy-on-first-hover.js),
// right after tippy's script.
import {expectSome} from "../contract.mjs";
import {pageScript} from "../page-scripts.mjs";
import {checkDependencies} from "../dependencies.mjs";

export default {
  name: "tippy-on-first-hover",
  // every page of the html format (its inventory says which)
  targets: (page) => !page.isDeck,
  apply(page, site) {
    expectSome(this.name, page, 'head > script[src$="/tippy.umd.min.js"]', '<script src=".../tippy.umd.min.js">')
      .after(page.script("tippy-on-first-hover", pageScript("tippy-on-first-hover"), {module: true}));
    // window.tippy, and Quarto's previews made by window.tippy(el, config) (tippy-global, tippy-call)
    checkDependencies(this.name, page, site);
    return 1;
  },
};
