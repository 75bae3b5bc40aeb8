// What the author wrote on each page, as the course's Lua filter counted it from pandoc's syntax tree
// (_extensions/course/inventory.lua, at: pre-ast) and wrote into the page's head as
// <meta name="course-inventory" content="{...}">.  The passes choose their pages by these counts,
// never by Quarto's HTML, and a pass that changes a different number of things than the inventory
// says stops the render: so markup that Quarto renames, moves or drops on some of the matches is a
// ContractError naming the pass, the page, the count expected and found, and the markup looked for.
import {ContractError} from "./contract.mjs";

export const INVENTORY_META = "course-inventory";
/** the counts inventory.lua writes, each a whole number */
export const COUNTS = ["formulas", "callouts", "collapsible", "figures", "headings", "ojs_cells", "ojs_hidden", "ojs_demos"];

/** The page's inventory ({format, search, ...COUNTS}), or null when its head has none. */
export function readInventory($) {
  const text = $(`meta[name="${INVENTORY_META}"]`).attr("content");
  if (text === undefined) return null;
  let inv;
  try {
    inv = JSON.parse(text);
  } catch {
    return null;
  }
  if (!["html", "revealjs"].includes(inv.format) || COUNTS.some((k) => !Number.isInteger(inv[k]))) return null;
  return inv;
}

/** An inventory of `counts` (the others 0; an html page in the search index): for pages made by hand, as the tests make them. */
export function inventoryOf(counts = {}) {
  return {format: "html", search: true, ...Object.fromEntries(COUNTS.map((k) => [k, 0])), ...counts};
}

/** That a pass found (or changed) exactly `expected` of `markup` on `page`: else a ContractError saying both numbers. */
export function expectCount(pass, page, expected, found, markup, why) {
  if (found !== expected) {
    throw new ContractError(pass, page.rel ?? page, `${expected} × ${markup} (${why})`, String(found),
      {expected, found, markup});
  }
  return found;
}
