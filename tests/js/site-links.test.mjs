// Every link of the rendered site leads somewhere (on the tests' one render, tests/js/site-render.mjs):
//   - each internal link and resource (a, link, script, img, source, iframe) names a file of _site/,
//     and its #anchor an id on that page (a reveal.js deck's #/id an id in the deck);
//   - no link is root-relative outside the site's own path (GitHub Pages serves the site below
//     /<repository>/, so "/x" would leave it);
//   - every outside link, of the pages and of the student notebooks, is listed in external-links.txt,
//     and every entry there is still linked from somewhere (the one place outside links are kept).
// Static: the HTML as written, no browser (site-pages.test.mjs opens the pages).
import {test} from "node:test";
import assert from "node:assert/strict";
import {existsSync, readdirSync, readFileSync, statSync} from "node:fs";
import {dirname, join, relative, sep, posix} from "node:path";
import {ROOT} from "./qmd-files.mjs";
import {renderedSite} from "./site-render.mjs";
import {onPath} from "./browser.mjs";

const LIST = join(ROOT, "external-links.txt");
// the repository the Colab links name: course.github, or on GitHub's runners $GITHUB_REPOSITORY
// (_extensions/course/module-info.lua); external-links.txt writes it {repo}
const REPOS = [...new Set([/^\s*github:\s*(\S+)/m.exec(readFileSync(join(ROOT, "_quarto.yml"), "utf8"))?.[1], process.env.GITHUB_REPOSITORY].filter(Boolean))];
const ATTR = /<(?:a|link|script|img|source|iframe)\b[^>]*?\s(?:href|src)="([^"]*)"/g;

/** The listed outside links: [{url, prefix}] (a line ending in * is a prefix; {repo} stands for each of `repos`). */
export function listedLinks(text = readFileSync(LIST, "utf8"), repos = REPOS) {
  return text.split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"))
    .map((l) => l.split(/\s+/)[0])
    .flatMap((line) => (line.includes("{repo}") ? repos.map((r) => line.replaceAll("{repo}", r)) : [line]).map((u) => ({u, line})))
    .map(({u, line}) => (u.endsWith("*") ? {url: u.slice(0, -1), prefix: true, line} : {url: u, prefix: false, line}));
}
const covers = (entry, url) => (entry.prefix ? url.startsWith(entry.url) : url === entry.url);

function pagesOf(site) {
  const walk = (d) => readdirSync(d, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory() ? (["site_libs", "vendor"].includes(e.name) ? [] : walk(join(d, e.name)))
      : e.name.endsWith(".html") ? [join(d, e.name)] : []);
  return walk(site).map((f) => relative(site, f).split(sep).join("/")).sort();
}

const decodeEntities = (s) => s.replace(/&amp;/g, "&").replace(/&quot;/g, '"').replace(/&#39;/g, "'");
const idsCache = new Map();
function idsOf(file) {
  if (!idsCache.has(file)) {
    const html = readFileSync(file, "utf8");
    idsCache.set(file, new Set([...html.matchAll(/\s(?:id|name)="([^"]+)"/g)].map((m) => decodeEntities(m[1]))));
  }
  return idsCache.get(file);
}

/** What is wrong with each link of the site: {broken: [...], outside: Map(url -> [pages])}. */
export function checkLinks(site, siteUrl) {
  const base = siteUrl ? new URL(siteUrl) : null;
  const broken = [], outside = new Map();
  for (const page of pagesOf(site)) {
    const html = readFileSync(join(site, page), "utf8");
    for (const m of html.matchAll(ATTR)) {
      let href = decodeEntities(m[1]).trim();
      if (!href || /^(mailto|javascript|data|tel):/i.test(href) || href === "#") continue;
      if (base && href.startsWith(base.href)) href = "/" + href.slice(base.origin.length).replace(/^\/+/, "");
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("//")) {
        const url = href.startsWith("//") ? `https:${href}` : href;
        outside.set(url, [...(outside.get(url) ?? []), page]);
        continue;
      }
      const [pathPart, hash = ""] = href.split("#");
      let target;
      if (pathPart.startsWith("/")) {
        const root = base ? base.pathname : "/";
        if (!pathPart.startsWith(root)) { broken.push(`${page}: ${href} is root-relative outside the site's path ${root}`); continue; }
        target = pathPart.slice(root.length);
      } else {
        target = pathPart ? posix.normalize(posix.join(posix.dirname(page), pathPart.split("?")[0])) : page;
      }
      target = decodeURIComponent(target.split("?")[0]);
      if (target.startsWith("..")) { broken.push(`${page}: ${href} leaves the site`); continue; }
      let file = join(site, target);
      if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "index.html");
      if (!existsSync(file)) { broken.push(`${page}: ${href} (no ${target})`); continue; }
      const id = decodeURIComponent(hash.replace(/^\//, ""));
      if (id && file.endsWith(".html") && !idsOf(file).has(id)) broken.push(`${page}: ${href} (no id "${id}" on ${target})`);
    }
  }
  return {broken, outside};
}

/** The outside links of a student notebook (its markdown and code). */
export function notebookLinks(path) {
  const nb = JSON.parse(readFileSync(path, "utf8"));
  const text = nb.cells.map((c) => [].concat(c.source).join("")).join("\n");
  return [...new Set([...text.matchAll(/https?:\/\/[^\s)\]"'<>`]+/g)].map((m) => m[0].replace(/[.,;:]+$/, "")))];
}

test("external-links.txt: one address per line, each an https address, none twice", () => {
  const entries = listedLinks();
  assert.ok(entries.length > 0);
  for (const e of entries) assert.match(e.url, /^https:\/\/[^\s]+$/, e.url);
  assert.equal(new Set(entries.map((e) => e.url)).size, entries.length, "an address is listed twice");
  assert.deepEqual(listedLinks("https://x/{repo}/*  note\n# c\nhttps://y", ["a/b", "c/d"]),
    [{url: "https://x/a/b/", prefix: true, line: "https://x/{repo}/*"}, {url: "https://x/c/d/", prefix: true, line: "https://x/{repo}/*"},
      {url: "https://y", prefix: false, line: "https://y"}]);
});

test("the checker finds a broken file, a missing anchor, a root-relative link and an outside link", async () => {
  const {mkdtempSync, writeFileSync, mkdirSync} = await import("node:fs");
  const {tmpdir} = await import("node:os");
  const site = mkdtempSync(join(tmpdir(), "links-"));
  mkdirSync(join(site, "m"));
  writeFileSync(join(site, "index.html"), '<a href="m/p.html#ok">1</a><a href="m/p.html#gone">2</a><a href="nope.html">3</a>' +
    '<a href="/x/y.html">4</a><a href="/z.html">4b</a><a href="https://example.org/a">5</a><img src="m/">');
  writeFileSync(join(site, "m", "p.html"), '<h2 id="ok">x</h2><a href="#/ok">deck</a><a href="../index.html">up</a>');
  writeFileSync(join(site, "m", "index.html"), "");
  const {broken, outside} = checkLinks(site, "https://u.github.io/x/");
  assert.deepEqual(broken, ['index.html: m/p.html#gone (no id "gone" on m/p.html)', "index.html: nope.html (no nope.html)",
    "index.html: /x/y.html (no y.html)", "index.html: /z.html is root-relative outside the site's path /x/"]);
  assert.deepEqual([...outside.keys()], ["https://example.org/a"]);
  assert.deepEqual(checkLinks(site, null).broken.filter((b) => b.includes("/x/y.html")), ["index.html: /x/y.html (no x/y.html)"]);
});

const skip = onPath("quarto") ? false : "quarto is not on PATH: the rendered site cannot be built here";

test("every internal link and anchor of the rendered site resolves; every outside link is listed", {skip}, async () => {
  const {dir, site} = await renderedSite();
  const siteUrl = /^\s*site-url:\s*(\S+)/m.exec(readFileSync(join(dir, "_quarto.yml"), "utf8"))?.[1] ?? null;
  const {broken, outside} = checkLinks(site, siteUrl);
  assert.deepEqual(broken, [], "links that lead nowhere");
  const entries = listedLinks();
  const all = new Map(outside);
  const notebooks = readdirSync(join(dir, "lab"), {withFileTypes: true}).filter((e) => e.isDirectory())
    .flatMap((e) => readdirSync(join(dir, "lab", e.name)).filter((f) => f.endsWith(".ipynb")).map((f) => join("lab", e.name, f)));
  assert.ok(notebooks.length > 0, "no student notebook under lab/<id>/");
  for (const nb of notebooks) for (const url of notebookLinks(join(dir, nb))) all.set(url, [...(all.get(url) ?? []), nb]);
  const unlisted = [...all].filter(([url]) => !entries.some((e) => covers(e, url))).map(([url, pages]) => `${url} (on ${[...new Set(pages)].join(", ")})`);
  assert.deepEqual(unlisted, [], "outside links missing from external-links.txt");
  const used = new Set(entries.filter((e) => [...all.keys()].some((url) => covers(e, url))).map((e) => e.line));
  const unused = [...new Set(entries.map((e) => e.line))].filter((line) => !used.has(line));
  assert.deepEqual(unused, [], "external-links.txt lists addresses nothing links to any more");
});
