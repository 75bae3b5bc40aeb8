// Quarto loads the dark theme's stylesheets with rel="stylesheet" and its script disables them at
// once: a reader in light mode downloads them for nothing.  Quarto's colour-scheme toggle sets
// rel="stylesheet" when dark mode is chosen (or preferred), and only then do they load.
import {expectSome} from "../contract.mjs";
import {checkDependencies} from "../dependencies.mjs";

export default {
  name: "dark-theme-on-demand",
  // every page of the html format (its inventory says which)
  targets: (page) => !page.isDeck,
  apply(page, site) {
    // Quarto's toggle turns them on by rel="stylesheet" (color-scheme-toggle)
    checkDependencies(this.name, page, site);
    const sheets = expectSome(this.name, page, 'link.quarto-color-scheme.quarto-color-alternate[rel="stylesheet"]',
      '<link class="quarto-color-scheme quarto-color-alternate" rel="stylesheet"> (the dark theme)');
    sheets.attr("rel", "disabled-stylesheet");
    return sheets.length;
  },
};
