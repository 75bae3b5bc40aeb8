// One rendered page as the passes see it: parsed once (cheerio over parse5, the HTML standard's
// parser), changed in place by each pass, written once at the end.
import {readFileSync} from "node:fs";
import {dirname, relative, sep} from "node:path";
import * as cheerio from "cheerio";
import {readInventory} from "./inventory.mjs";

export class Page {
  constructor(site, file, html = readFileSync(file, "utf8")) {
    this.file = file;
    this.site = site;
    /** the page's path in the site, with "/" (as in an address): "modules/<id>/index.html" */
    this.rel = relative(site, file).split(sep).join("/");
    /** from the page to the site's root: "../../" ("" for a page at the root) */
    this.toRoot = "../".repeat(this.rel.split("/").length - 1);
    this.dir = dirname(file);
    this.original = html;
    this.$ = cheerio.load(html);
    /** what the author wrote on it (inventory.mjs): null when its head carries none */
    this.setInventory(readInventory(this.$));
    /** files to write beside the page: name -> text */
    this.besides = new Map();
  }

  setInventory(inventory) {
    this.inventory = inventory;
    /** a reveal.js deck: its own scripts start its plugins at once, so the page-speed passes leave it alone */
    this.isDeck = inventory?.format === "revealjs";
  }

  html() {
    return this.$.html();
  }

  /** An inline <script> holding one of the course's page scripts (_extensions/course/post-render/passes/),
      with its settings as data-* attributes (the script reads them from its own element). */
  script(id, source, {module = false, data = {}} = {}) {
    const el = this.$("<script></script>").attr("id", id);
    if (module) el.attr("type", "module");
    for (const [key, value] of Object.entries(data)) el.attr(`data-${key}`, typeof value === "string" ? value : JSON.stringify(value));
    el.text(source);
    return el;
  }
}
