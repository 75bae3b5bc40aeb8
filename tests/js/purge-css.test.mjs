// The purge-css pass of the post-render (_extensions/course/post-render/passes/purge-css.mjs) on a small site:
// which rules it keeps (those whose classes a page, a script or a demo's OJS source names), what it
// leaves (Quarto's original), how the pages link, and that a second run with nothing changed takes
// the purged sheets from the cache and writes nothing.
import {test} from "node:test";
import assert from "node:assert/strict";
import {mkdtempSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync} from "node:fs";
import {join} from "node:path";
import {tmpdir} from "node:os";
import purgeCss, {usedName, PURGED, scriptWords} from "../../_extensions/course/post-render/passes/purge-css.mjs";
import {Site, finishSite} from "../../_extensions/course/post-render/pipeline.mjs";
import {Cache} from "../../_extensions/course/post-render/cache.mjs";
import {ContractError} from "../../_extensions/course/post-render/contract.mjs";
import {handMadeInventory} from "./hand-made-inventory.mjs";

const CSS = [".navbar{color:red}", ".never-named{color:blue}", ".show{display:block}", ".from-ojs{color:green}",
  ".bi-github::before{content:\"\\f3ed\"}", ".bi-file-richtext::before{content:\"\\f3b1\"}", ".bi-search::before{content:\"\\f52a\"}", "@keyframes unused-spin{to{transform:rotate(1turn)}}", "p a{color:navy}",
  "table{width:100%}", ".headroom--pinned{top:0}", ".headroom--unpinned{top:-70px}"].join("\n");

function site() {
  const dir = mkdtempSync(join(tmpdir(), "purge-css-"));
  mkdirSync(join(dir, "site_libs", "bootstrap"), {recursive: true});
  mkdirSync(join(dir, "modules", "m"), {recursive: true});
  writeFileSync(join(dir, "site_libs", "bootstrap", "bootstrap-0123abcd.min.css"), CSS);
  writeFileSync(join(dir, "site_libs", "bootstrap", "bootstrap-icons.css"), CSS);
  writeFileSync(join(dir, "site_libs", "bootstrap", "bootstrap.min.js"), 'el.classList.add("show")');
  // Quarto's navbar script adds these as the reader scrolls (quarto-dependencies.json: script-added-classes)
  writeFileSync(join(dir, "site_libs", "bootstrap", "quarto-nav.js"), 'classes: {pinned: "headroom--pinned", unpinned: "headroom--unpinned"}');
  // Quarto's search names its result icon by itself and builds the class: `bi bi-${icon}`
  writeFileSync(join(dir, "site_libs", "bootstrap", "search.js"), 'card("file-richtext"); const c = `bi bi-${icon}`;');
  const head = '<link href="../../site_libs/bootstrap/bootstrap-icons.css" rel="stylesheet">' +
    '<link href="../../site_libs/bootstrap/bootstrap-0123abcd.min.css" rel="stylesheet" id="quarto-bootstrap">' +
    '<link rel="stylesheet" href="../../site.css">';
  writeFileSync(join(dir, "modules", "m", "index.html"), `<html><head>${head}</head><body><nav class="navbar"><i class="bi bi-github"></i></nav><p>text <a href="#">a link</a></p></body></html>`);
  const source = JSON.stringify({contents: [{source: 'html`<div class="from-ojs">`'}]});
  writeFileSync(join(dir, "modules", "m", "index.ojs-source-abcdef.txt"), Buffer.from(source).toString("base64"));
  return dir;
}

/** A cache that counts what it computes. */
class CountingCache extends Cache {
  computed = 0;
  get(name, key, compute) {
    return super.get(name, key, () => { this.computed++; return compute(); });
  }
}

const finish = (dir, cache = new Cache(null)) => finishSite(new Site({dir, project: dir, cache, quartoShare: null, inventory: handMadeInventory}), [purgeCss]);

test("purge-css keeps the rules that pages, scripts and demo source name, and drops the rest", async () => {
  const dir = site();
  try {
    const r = await finish(dir);
    assert.equal(r["purge-css"]["(site)"], 2);
    const used = readFileSync(join(dir, "site_libs", "bootstrap", "bootstrap-0123abcd.used.min.css"), "utf8");
    for (const kept of [".navbar", ".show", ".from-ojs", ".bi-github", ".bi-file-richtext", "p a"]) assert.ok(used.includes(kept), `${kept} dropped`);
    assert.ok(!used.includes(".never-named"), "a class nothing names is kept");
    assert.ok(!used.includes(".bi-search"), "an icon nothing names is kept");
    assert.ok(!used.includes("table"), "a rule for an element no page has is kept");
    assert.ok(!used.includes("unused-spin"), "an unused @keyframes is kept");
    assert.ok(readFileSync(join(dir, "site_libs", "bootstrap", "bootstrap-icons.used.css"), "utf8").includes(".bi-github"));
    // Quarto's original stays, for the next render to purge from
    assert.equal(readFileSync(join(dir, "site_libs", "bootstrap", "bootstrap-0123abcd.min.css"), "utf8"), CSS);
    const page = readFileSync(join(dir, "modules", "m", "index.html"), "utf8");
    assert.match(page, /href="\.\.\/\.\.\/site_libs\/bootstrap\/bootstrap-0123abcd\.used\.min\.css"/);
    assert.match(page, /href="\.\.\/\.\.\/site_libs\/bootstrap\/bootstrap-icons\.used\.css"/);
    assert.match(page, /href="\.\.\/\.\.\/site\.css"/, "another stylesheet left as it was");
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
});

test("purge-css purges nothing again the second time, and purges again from the original when a page changes", async () => {
  const dir = site();
  const cacheDir = join(dir, ".cache");
  try {
    const first = new CountingCache(cacheDir);
    await finish(dir, first);
    assert.equal(first.computed, 1);
    const usedFile = join(dir, "site_libs", "bootstrap", "bootstrap-0123abcd.used.min.css");
    const mtime = statSync(usedFile).mtimeMs;
    const again = new CountingCache(cacheDir);
    await finish(dir, again);
    assert.equal(again.computed, 0, "nothing changed, yet it purged again");
    assert.equal(statSync(usedFile).mtimeMs, mtime, "an unchanged purged sheet is written again");
    // a render of the whole site starts from a fresh site_libs/: the purged sheets come back, not purged again
    const kept = readFileSync(usedFile, "utf8");
    rmSync(usedFile);
    const fresh = new CountingCache(cacheDir);
    await finish(dir, fresh);
    assert.equal(fresh.computed, 0);
    assert.equal(readFileSync(usedFile, "utf8"), kept);
    // a page now names a class: the next run keeps its rule
    const other = join(dir, "modules", "m", "other.html");
    writeFileSync(other, '<html><head><link href="../../site_libs/bootstrap/bootstrap-0123abcd.min.css" rel="stylesheet"></head><body><div class="never-named"></div></body></html>');
    const changed = new CountingCache(cacheDir);
    await finish(dir, changed);
    assert.equal(changed.computed, 1);
    assert.ok(readFileSync(usedFile, "utf8").includes(".never-named"));
    assert.match(readFileSync(other, "utf8"), /bootstrap-0123abcd\.used\.min\.css/);
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
});

test("purge-css's names: which sheets, their purged copies, and the words a script may name a class with", () => {
  assert.equal(usedName("bootstrap-a02f.min.css"), "bootstrap-a02f.used.min.css");
  assert.equal(usedName("bootstrap-icons.css"), "bootstrap-icons.used.css");
  for (const n of ["bootstrap-a02f4bc8.min.css", "bootstrap-dark-5dead679.min.css", "bootstrap-icons.css"]) assert.ok(PURGED.test(n), n);
  for (const n of ["bootstrap-a02f4bc8.used.min.css", "bootstrap-icons.used.css", "quarto-ojs.css", "tippy.css"]) assert.ok(!PURGED.test(n), n);
  const words = scriptWords('el.classList.add("show"); card("file-richtext"); const c = `bi bi-${icon}`;');
  for (const w of ["show", "classList", "file-richtext", "bi-file-richtext", "bi-show"]) assert.ok(words.includes(w), w);
  assert.ok(!words.includes("bi-classList"), "an unquoted word is not an icon's name");
});

test("purge-css stops the render, naming itself, where Quarto's stylesheets are named otherwise", async () => {
  for (const name of ["bootstrap-0123abcd.min.css", "bootstrap-icons.css"]) {
    const dir = site();
    try {
      rmSync(join(dir, "site_libs", "bootstrap", name));
      await assert.rejects(finish(dir), (e) => e instanceof ContractError && /"purge-css"/.test(e.message) && /site_libs\/bootstrap/.test(e.message), name);
    } finally {
      rmSync(dir, {recursive: true, force: true});
    }
  }
});
