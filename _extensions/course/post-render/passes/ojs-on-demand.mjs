// Quarto's OJS runtime is a module <script> in the head (892 KB unminified) and an inline module at
// the end of the body that starts it.  Here both give way to ./ojs-on-demand.js, which
// imports Quarto's own minified runtime (minified-ojs-runtime.mjs copies it) once a reader may see a
// demo, with Quarto's path settings as its data.  The cells' source (Quarto's base64 JSON, which
// compresses poorly) goes to a file beside the page, fetched only then; its name carries a hash of
// its text, so that a browser's cached copy never meets a newer page.
import {createHash} from "node:crypto";
import {expectMatch, expectSome} from "../contract.mjs";
import {pageScript} from "../page-scripts.mjs";
import {expectCount} from "../inventory.mjs";

export const RUNTIME = "quarto-ojs-runtime.js";
// the "near the screen" trigger the page script imports (the demos' seen() uses it too; _quarto.yml copies it)
export const NEAR_SCREEN = "_extensions/course/near-screen.js";
export const RUNTIME_MIN = "quarto-ojs-runtime.min.js";
// a demo's ES module, as the cells import it
const MODULE_IMPORT = /import\(new URL\("([^"]+)", document\.baseURI\)/g;
// Quarto's start-up script: a test for file:// addresses, the paths, then the start
const PATH_SETTING = /window\._ojs\.paths\.(\w+) = ("[^"]*");/g;
const SELF_CONTAINED = /window\._ojs\.selfContained = (true|false);/;

export default {
  name: "ojs-on-demand",
  // a page (or deck) whose author wrote an OJS cell
  targets: (page) => page.inventory.ojs_cells > 0,
  apply(page) {
    const {$} = page;
    const runtime = expectSome(this.name, page, `script[type="module"][src$="quarto-ojs/${RUNTIME}"]`, `<script type="module"> loading ${RUNTIME}`);
    const start = $("script[type=module]:not([src])").filter((i, el) => $(el).text().includes("interpretFromScriptTags()"));
    expectMatch(this.name, page, start.length === 1, "inline module script calling window._ojs.runtime.interpretFromScriptTags()");
    const contents = expectSome(this.name, page, 'script[type="ojs-module-contents"]', '<script type="ojs-module-contents"> (the cells\' source)');
    const code = start.text();
    const paths = Object.fromEntries([...code.matchAll(PATH_SETTING)].map((m) => [m[1], JSON.parse(m[2])]));
    expectMatch(this.name, page, Object.keys(paths).length > 0, "window._ojs.paths settings in the start-up script");
    const selfContained = expectMatch(this.name, page, SELF_CONTAINED.exec(code), "window._ojs.selfContained in the start-up script")[1];
    const base64 = contents.text().trim();
    let cells;
    try {
      cells = JSON.parse(Buffer.from(base64, "base64").toString("utf8")).contents;
    } catch {
      cells = null;
    }
    expectMatch(this.name, page, Array.isArray(cells), "base64 JSON {contents: [...]} in <script type=\"ojs-module-contents\">");
    // one entry per cell (cellName ojs-cell-N), beside the modules the cells import
    expectCount(this.name, page, page.inventory.ojs_cells, cells.filter((c) => /^ojs-cell-\d+$/.test(c.cellName ?? "")).length,
      'an entry {cellName: "ojs-cell-N", source} in <script type="ojs-module-contents">', "one per ```{ojs} cell the author wrote");
    const sources = cells.map((c) => c.source).join("\n");
    const preload = [...new Set([...sources.matchAll(MODULE_IMPORT)].map((m) => m[1]))];
    const src = runtime.attr("src");
    start.replaceWith(page.script("ojs-on-demand", pageScript("ojs-on-demand"), {module: true, data: {
      runtime: src.slice(0, -RUNTIME.length) + RUNTIME_MIN, near: page.toRoot + NEAR_SCREEN, preload, paths, "self-contained": selfContained,
    }}));
    runtime.remove();
    const stem = page.rel.split("/").pop().replace(/\.html$/, "");
    const name = `${stem}.ojs-source-${createHash("sha256").update(base64).digest("hex").slice(0, 10)}.txt`;
    page.besides.set(name, base64);
    contents.attr("data-src", name).text("");
    return page.inventory.ojs_cells;
  },
};
