// Each DOMContentLoaded listener in a task of its own (./dom-ready-in-turns.js), first in
// the head, before any script adds a listener.
import {expectSome} from "../contract.mjs";
import {pageScript} from "../page-scripts.mjs";
import {checkDependencies} from "../dependencies.mjs";

export default {
  name: "dom-ready-in-turns",
  // every page of the html format (its inventory says which)
  targets: (page) => !page.isDeck,
  apply(page, site) {
    expectSome(this.name, page, "head > script", "<script> in the head").first().before(page.script("dom-ready-in-turns", pageScript("dom-ready-in-turns")));
    // Quarto's scripts still set up from DOMContentLoaded listeners (dom-ready-listeners)
    checkDependencies(this.name, page, site);
    return 1;
  },
};
