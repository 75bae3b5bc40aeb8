// A cross-referenced figure's image box is keyboard-focusable, so that a figure which scrolls
// sideways on a phone (site.css: figures marked .diagram) can be scrolled without a mouse.
import {expectCount} from "../inventory.mjs";

const BOX = "figure.quarto-float-fig > div[aria-describedby]:has(> img)";

export default {
  name: "focusable-figures",
  // a page whose author wrote a cross-referenced figure (#fig-...) of an image
  targets: (page) => !page.isDeck && page.inventory.figures > 0,
  apply(page) {
    const boxes = page.$(BOX);
    expectCount(this.name, page, page.inventory.figures, boxes.length, `a figure's image box <div aria-describedby> in <figure class="quarto-float-fig"> (${BOX})`, "one per cross-referenced figure the author wrote");
    boxes.attr("tabindex", "0");
    return boxes.length;
  },
};
