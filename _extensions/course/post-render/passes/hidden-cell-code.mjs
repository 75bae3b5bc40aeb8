// Quarto writes the source of every OJS cell into the page, hidden when the cell does not echo it
// (echo: false), so that its runtime can point at the line of an error.  On a page of demos that is
// a large share of its HTML and elements, parsed and styled at load and never shown.  The runtime
// does without them (it then shows the error box alone).  Every page with demos has at least one
// such cell: the course's demo set-up (_extensions/course/demo-setup.ojs).
export default {
  name: "hidden-cell-code",
  targets: (page) => page.$("[id^=ojs-cell-]").length > 0,
  apply(page) {
    const hidden = page.$("div.code-copy-outer-scaffold").filter((i, el) => page.$(el).children("div.sourceCode.cell-code.hidden").length > 0);
    hidden.remove();
    return hidden.length;
  },
};
