// Quarto writes the source of every OJS cell into the page, hidden when the cell does not echo it
// (echo: false), so that its runtime can point at the line of an error.  On a page of demos that is
// a large share of its HTML and elements, parsed and styled at load and never shown.  The runtime
// does without them (it then shows the error box alone).  Every page with demos has at least one
// such cell: the course's demo set-up (_extensions/course/demo-setup.ojs).
import {expectCount} from "../inventory.mjs";

const HIDDEN_SOURCE = "div.cell div.code-copy-outer-scaffold:has(> div.sourceCode.cell-code.hidden)";

export default {
  name: "hidden-cell-code",
  // a page whose author wrote an OJS cell that does not show its source (echo: false)
  targets: (page) => page.inventory.ojs_hidden > 0,
  apply(page) {
    const hidden = page.$(HIDDEN_SOURCE);
    // a cell's source may come in several blocks (one per OJS statement): the cells are counted
    const cells = new Set(hidden.toArray().map((el) => page.$(el).closest("div.cell")[0]));
    expectCount(this.name, page, page.inventory.ojs_hidden, cells.size, `an OJS cell's hidden source <div class="cell"> holding <div class="code-copy-outer-scaffold"><div class="sourceCode cell-code hidden"> (${HIDDEN_SOURCE})`,
      "one per ```{ojs} cell with echo: false the author wrote");
    hidden.remove();
    return cells.size;
  },
};
