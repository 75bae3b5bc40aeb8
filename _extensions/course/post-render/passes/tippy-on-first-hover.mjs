// Hover previews built when their link is first pointed at or focused (./tippy-on-first-hover.js),
// right after tippy's script.
import {expectSome} from "../contract.mjs";
import {pageScript} from "../page-scripts.mjs";

export default {
  name: "tippy-on-first-hover",
  targets: (page) => !page.isDeck,
  apply(page) {
    expectSome(this.name, page, 'head > script[src$="/tippy.umd.min.js"]', '<script src=".../tippy.umd.min.js">')
      .after(page.script("tippy-on-first-hover", pageScript("tippy-on-first-hover"), {module: true}));
    return 1;
  },
};
