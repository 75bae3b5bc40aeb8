// A way back from each page (on the tests' one render): the footer shows the site's version (commit
// and date, scripts/site_stamp.mjs), the Quarto that rendered it (the one in .quarto-version) and
// on a module's pages its measured data's provenance; each page links to its source and to "Report an issue"
// (repo-url, repo-actions); Quarto wrote sitemap.xml (site-url) and the 404 page.
import {test} from "node:test";
import assert from "node:assert/strict";
import {existsSync, readdirSync, readFileSync} from "node:fs";
import {join, relative, sep} from "node:path";
import {ROOT} from "./qmd-files.mjs";
import {renderedSite} from "./site-render.mjs";
import {onPath} from "./browser.mjs";
import {stampText, provenanceText} from "../../scripts/site_stamp.mjs";

test("the stamp names the commit, its date, uncommitted changes and the Quarto version", () => {
  assert.equal(stampText({commit: "0123456789ab", date: "2026-12-01", changed: false}, "1.11.0"),
    "Site version 0123456789ab (2026-12-01) · rendered with Quarto 1.11.0");
  assert.equal(stampText({commit: "0123456789ab", date: "2026-12-01", changed: true}, "1.11.0"),
    "Site version 0123456789ab+changes (2026-12-01) · rendered with Quarto 1.11.0");
  assert.equal(stampText({commit: "not in git", date: null, changed: false}, "1.11.0"),
    "Site version not in git · rendered with Quarto 1.11.0");
});

const skip = onPath("quarto") ? false : "quarto is not on PATH: the rendered site cannot be built here";

test("every page's footer: version, Quarto, provenance, source and issue links; sitemap and 404", {skip, timeout: 900_000}, async () => {
  const {site} = await renderedSite();
  const quarto = readFileSync(join(ROOT, ".quarto-version"), "utf8").trim();
  const walk = (d) => readdirSync(d, {withFileTypes: true}).flatMap((e) => e.isDirectory()
    ? (["site_libs", "vendor"].includes(e.name) ? [] : walk(join(d, e.name))) : e.name.endsWith(".html") ? [join(d, e.name)] : []);
  const pages = walk(site).map((f) => relative(site, f).split(sep).join("/")).filter((p) => !p.endsWith("slides.html"));
  assert.ok(pages.includes("404.html") && pages.includes("modules/03-sequence-models/index.html"), pages.join(", "));
  assert.match(provenanceText("03-sequence-models"), /^Results: Lab 3 at full settings, seed \d+, on .+, \d{4}-\d{2}-\d{2} \(data\/03-sequence-models\/results\.json\)$/);
  for (const page of pages) {
    const html = readFileSync(join(site, page), "utf8");
    const stamp = /<span class="site-version">([^<]*)<\/span>/.exec(html)?.[1];
    assert.match(stamp ?? "", new RegExp(`^Site version [0-9a-f]{12}(\\+changes)? \\(\\d{4}-\\d{2}-\\d{2}\\) · rendered with Quarto ${quarto.replace(/\./g, "\\.")}$`), `${page}: ${stamp}`);
    const id = /^modules\/([^/]+)\//.exec(page)?.[1];
    const provenance = /<span class="data-provenance">([^<]*)<\/span>/.exec(html)?.[1];
    assert.equal(provenance, id ? provenanceText(id) : "", `${page}: the data's provenance`);
    if (id) assert.ok(provenance, `${page}: no provenance for module ${id}`);
    if (page !== "404.html") {
      assert.match(html, /href="https:\/\/github\.com\/[^"]+\/blob\/[^"]+\.qmd"[^>]*>[\s\S]{0,80}View source/, `${page}: View source`);
      assert.match(html, /href="https:\/\/github\.com\/[^"]+\/issues\/new"[^>]*>[\s\S]{0,80}Report an issue/, `${page}: Report an issue`);
    }
  }
  const sitemap = readFileSync(join(site, "sitemap.xml"), "utf8");
  for (const p of ["index.html", "modules/03-sequence-models/index.html", "modules/03-sequence-models/lab.html", "modules/03-sequence-models/glossary.html"])
    assert.ok(sitemap.includes(`/${p}</loc>`), `sitemap.xml lists ${p}`);
  assert.ok(existsSync(join(site, "404.html")));
});
