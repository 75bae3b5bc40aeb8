// Quarto's collapsible callout header is a <div> with aria-expanded but no role, named "Toggle
// callout": here it becomes a button, keyboard-focusable and named by its title, and Enter or Space
// opens it (./callout-keyboard.js, at the end of the body).
import {expectSome} from "../contract.mjs";
import {pageScript} from "../page-scripts.mjs";

export default {
  name: "callout-buttons",
  targets: (page) => !page.isDeck && page.$(".callout-collapse").length > 0,
  apply(page) {
    const toggles = expectSome(this.name, page, 'div.callout-header[data-bs-toggle="collapse"][aria-label="Toggle callout"]',
      'a collapsible callout\'s header <div class="callout-header" data-bs-toggle="collapse" aria-label="Toggle callout">');
    toggles.attr({role: "button", tabindex: "0"}).removeAttr("aria-label");
    page.$("body").append(page.script("callout-keyboard", pageScript("callout-keyboard")));
    return toggles.length;
  },
};
