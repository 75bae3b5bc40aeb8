// Every block laid out before a jump into the page (page-scripts/blocks-laid-out-before-a-jump.js,
// which site.css's content-visibility rule needs), first in the head after the character set.
import {expectSome} from "../contract.mjs";
import {pageScript} from "../page-scripts.mjs";

export default {
  name: "blocks-laid-out-before-a-jump",
  targets: (page) => !page.isDeck,
  apply(page) {
    expectSome(this.name, page, "head > meta[charset]", "<meta charset> in the head")
      .after(page.script("blocks-laid-out-before-a-jump", pageScript("blocks-laid-out-before-a-jump")));
    return 1;
  },
};
