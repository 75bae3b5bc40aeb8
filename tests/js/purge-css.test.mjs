// scripts/purge_css.mjs on a small site: which rules it keeps (those whose classes a page, a script or
// a demo's OJS source names), what it leaves (Quarto's original), how the pages link, and that a second
// run with nothing changed writes nothing.
import {test} from "node:test";
import assert from "node:assert/strict";
import {mkdtempSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync} from "node:fs";
import {join} from "node:path";
import {tmpdir} from "node:os";
import {purgeSite, usedName, linkUsed, PURGED} from "../../scripts/purge_css.mjs";

const CSS = [".navbar{color:red}", ".never-named{color:blue}", ".show{display:block}", ".from-ojs{color:green}",
  ".bi-github::before{content:\"\\f3ed\"}", ".bi-file-richtext::before{content:\"\\f3b1\"}", ".bi-search::before{content:\"\\f52a\"}", "@keyframes unused-spin{to{transform:rotate(1turn)}}", "p a{color:navy}",
  "table{width:100%}"].join("\n");

function site() {
  const dir = mkdtempSync(join(tmpdir(), "purge-css-"));
  mkdirSync(join(dir, "site_libs", "bootstrap"), {recursive: true});
  mkdirSync(join(dir, "modules", "m"), {recursive: true});
  writeFileSync(join(dir, "site_libs", "bootstrap", "bootstrap-0123abcd.min.css"), CSS);
  writeFileSync(join(dir, "site_libs", "bootstrap", "bootstrap-icons.css"), CSS);
  writeFileSync(join(dir, "site_libs", "bootstrap", "bootstrap.min.js"), 'el.classList.add("show")');
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

test("purge_css keeps the rules that pages, scripts and demo source name, and drops the rest", async () => {
  const dir = site();
  try {
    const r = await purgeSite(dir);
    assert.equal(r.sheets, 2);
    const used = readFileSync(join(dir, "site_libs", "bootstrap", "bootstrap-0123abcd.used.min.css"), "utf8");
    for (const kept of [".navbar", ".show", ".from-ojs", ".bi-github", ".bi-file-richtext", "p a"]) assert.ok(used.includes(kept), `${kept} dropped`);
    assert.ok(!used.includes(".never-named"), "a class nothing names is kept");
    assert.ok(!used.includes(".bi-search"), "an icon nothing names is kept");
    assert.ok(!used.includes("table"), "a rule for an element no page has is kept");
    assert.ok(!used.includes("unused-spin"), "an unused @keyframes is kept");
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

test("purge_css does nothing the second time, and purges again from the original when a page changes", async () => {
  const dir = site();
  const state = join(dir, "state.json");
  try {
    await purgeSite(dir, {stateFile: state});
    const usedFile = join(dir, "site_libs", "bootstrap", "bootstrap-0123abcd.used.min.css");
    const mtime = statSync(usedFile).mtimeMs;
    assert.equal((await purgeSite(dir, {stateFile: state})).skipped, true, "nothing changed, yet it purged again");
    assert.equal(statSync(usedFile).mtimeMs, mtime);
    // a render of the whole site starts from a fresh site_libs/: the purged sheets come back, not purged again
    const kept = readFileSync(usedFile, "utf8");
    rmSync(usedFile);
    assert.equal((await purgeSite(dir, {stateFile: state})).skipped, true);
    assert.equal(readFileSync(usedFile, "utf8"), kept);
    // a page now names a class: the next run keeps its rule
    const other = join(dir, "modules", "m", "other.html");
    writeFileSync(other, '<html><head><link href="../../site_libs/bootstrap/bootstrap-0123abcd.min.css" rel="stylesheet"></head><body><div class="never-named"></div></body></html>');
    const r = await purgeSite(dir, {stateFile: state, pages: [other]});
    assert.equal(r.skipped, false);
    assert.ok(readFileSync(usedFile, "utf8").includes(".never-named"));
    assert.match(readFileSync(other, "utf8"), /bootstrap-0123abcd\.used\.min\.css/);
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
});

test("purge_css's names: which sheets, and their purged copies", () => {
  assert.equal(usedName("bootstrap-a02f.min.css"), "bootstrap-a02f.used.min.css");
  assert.equal(usedName("bootstrap-icons.css"), "bootstrap-icons.used.css");
  for (const n of ["bootstrap-a02f4bc8.min.css", "bootstrap-dark-5dead679.min.css", "bootstrap-icons.css"]) assert.ok(PURGED.test(n), n);
  for (const n of ["bootstrap-a02f4bc8.used.min.css", "bootstrap-icons.used.css", "quarto-ojs.css", "tippy.css"]) assert.ok(!PURGED.test(n), n);
  assert.equal(linkUsed('<link href="a/bootstrap-icons.css" rel="stylesheet">', ["bootstrap-icons.css"]),
    '<link href="a/bootstrap-icons.used.css" rel="stylesheet">');
  assert.equal(linkUsed('<link href="a/tippy.css" rel="stylesheet">', ["bootstrap-icons.css"]), '<link href="a/tippy.css" rel="stylesheet">');
});
