// A cross-referenced figure's image box is keyboard-focusable, so that a figure which scrolls
// sideways on a phone (site.css: figures marked .diagram) can be scrolled without a mouse.
import {expectSome} from "../contract.mjs";

export default {
  name: "focusable-figures",
  targets: (page) => !page.isDeck && page.$("figure.quarto-float-fig").length > 0,
  apply(page) {
    const boxes = expectSome(this.name, page, "figure.quarto-float-fig > div[aria-describedby]:has(> img)",
      'a figure\'s image box <div aria-describedby> in <figure class="quarto-float-fig">');
    boxes.attr("tabindex", "0");
    return boxes.length;
  },
};
