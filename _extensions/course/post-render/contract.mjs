// What a pass expects of Quarto's markup, said out loud: a pass that cannot find what it works on, or
// finds a different number of it than the page's inventory says the author wrote (inventory.mjs),
// stops the render, naming itself, the page, what it expected, what it found and the markup it looked
// for, so that a Quarto release that moves its markup fails the render, never a reader.
export class ContractError extends Error {
  constructor(pass, page, what, found = "none", {expected = null, markup = what} = {}) {
    super(`post-render pass "${pass}" expected ${what} in ${page}, and found ${found} (has Quarto's markup changed? see ${pass === "inventory" ? "_extensions/course/inventory.lua" : `_extensions/course/post-render/passes/${pass}.mjs`})`);
    this.pass = pass;
    this.page = page;
    this.expected = expected;
    this.found = found;
    this.markup = markup;
  }
}

/** The elements `selector` finds in `page`, which must be at least one: else a ContractError. */
export function expectSome(pass, page, selector, what = selector) {
  const found = page.$(selector);
  if (found.length === 0) throw new ContractError(pass, page.rel, what, "none", {markup: selector});
  return found;
}

/** `match` (a regular expression's match, or any value) when it is truthy, else a ContractError. */
export function expectMatch(pass, page, match, what) {
  if (!match) throw new ContractError(pass, page.rel, what);
  return match;
}
