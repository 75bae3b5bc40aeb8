// The Quarto markup the course's browser code relies on (your-run.js, demo-setup.ojs, the page
// scripts, site.css), which no other pass changes: each entry of quarto-dependencies.json owned by
// this pass is checked on every page whose inventory says it needs it (a page with callouts has each
// callout's body box, a page with demos their cells' classes, every page the navbar site.css styles),
// so that a Quarto release that moves it stops the render instead of a reader's page going wrong.
// It changes nothing: its count is the checks it made.  Early, while the pages are as Quarto wrote them.
import {DEPENDENCIES, checkDependencies} from "../dependencies.mjs";

const OWN = DEPENDENCIES.filter((d) => d.pass === "browser-dependencies" && d.check);

export default {
  name: "browser-dependencies",
  // every page a check applies to: each html page (the navbar, main.content), and pages with callouts or OJS cells
  targets: (page) => !page.isDeck || page.inventory.ojs_cells > 0,
  apply(page, site) {
    checkDependencies(this.name, page, site);
    // the checks made on this page
    return OWN.filter((d) => d.check.per && (!page.isDeck || d.check.deck)).length;
  },
};
