// Each DOMContentLoaded listener in a task of its own (./dom-ready-in-turns.js), first in
// the head, before any script adds a listener.
import {expectSome} from "../contract.mjs";
import {pageScript} from "../page-scripts.mjs";

export default {
  name: "dom-ready-in-turns",
  targets: (page) => !page.isDeck,
  apply(page) {
    expectSome(this.name, page, "head > script", "<script> in the head").first().before(page.script("dom-ready-in-turns", pageScript("dom-ready-in-turns")));
    return 1;
  },
};
