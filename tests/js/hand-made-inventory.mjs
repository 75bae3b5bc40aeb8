// The inventory of a page a test makes by hand (what _extensions/course/inventory.lua would have
// counted from its source, had it one): the counts the page states in a comment
// <!-- inventory {"headings": 2} -->, else those its Quarto-shaped markup implies (a deck where it has
// div.reveal).  For the tests of one pass's behaviour; that a pass changes exactly what the author
// wrote, against Quarto's real output, is the catalogue's (tests/contracts/, quarto-contracts.test.mjs).
import {inventoryOf} from "../../_extensions/course/post-render/inventory.mjs";

export function handMadeInventory(page) {
  const {$} = page;
  const stated = /<!-- inventory (\{.*?\}) -->/.exec(page.original);
  const cells = (sel) => new Set($(sel).toArray().map((el) => $(el).closest("div.cell")[0] ?? el)).size;
  return inventoryOf({
    format: $("div.reveal").length ? "revealjs" : "html",
    ...(stated ? {} : {
      // a formula as the course's filter hands it over, as pandoc writes it, or already typeset
      formulas: $("span.course-tex").length + $("span.math:not(:has(math))").length + $("math").length,
      callouts: $("div.callout").length,
      collapsible: $(".callout-collapse").length,
      figures: $("figure.quarto-float-fig").length,
      headings: $("section[id] > :is(h2, h3, h4, h5, h6)").length,
      ojs_cells: cells("[id^=ojs-cell-]"),
      ojs_hidden: cells("div.sourceCode.cell-code.hidden"),
      ojs_demos: $("div.cell.demo").length,
    }),
    ...JSON.parse(stated?.[1] ?? "{}"),
  });
}
