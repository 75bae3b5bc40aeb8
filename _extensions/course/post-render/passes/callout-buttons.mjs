// Quarto's collapsible callout header is a <div> with aria-expanded but no role, named "Toggle
// callout": here it becomes a button, keyboard-focusable and named by its title, and Enter or Space
// opens it (./callout-keyboard.js, at the end of the body).
import {expectCount} from "../inventory.mjs";
import {pageScript} from "../page-scripts.mjs";

const TOGGLE = 'div.callout-header[data-bs-toggle="collapse"][aria-label="Toggle callout"]';

export default {
  name: "callout-buttons",
  // a page whose author wrote a collapsible callout (collapse="true" or "false")
  targets: (page) => !page.isDeck && page.inventory.collapsible > 0,
  apply(page) {
    const toggles = page.$(TOGGLE);
    expectCount(this.name, page, page.inventory.collapsible, toggles.length, `a collapsible callout's header <div class="callout-header" data-bs-toggle="collapse" aria-label="Toggle callout"> (${TOGGLE})`, "one per collapsible callout the author wrote");
    toggles.attr({role: "button", tabindex: "0"}).removeAttr("aria-label");
    page.$("body").append(page.script("callout-keyboard", pageScript("callout-keyboard")));
    return toggles.length;
  },
};
