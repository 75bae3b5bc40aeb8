// The post-render pipeline: every pass of _extensions/course/post-render/passes/ over the rendered site, in the
// order passes/index.mjs gives, each page parsed once and written once.
//
// A page pass says which pages it targets (`targets(page)`, from the page's inventory: what the author
// wrote, inventory.mjs), checks the markup it expects (contract.mjs) and returns how many changes it
// made, which must be what the inventory says; a targeted page it changes nothing on stops the render too.
// A site pass works on the whole site (the search index, the fonts, the stylesheets).  Nothing is
// written until every pass has run, so a pass that fails leaves the site as Quarto wrote it.
// A page finished by an earlier render (`quarto preview`, `quarto render PAGE` leave the others in
// the output folder) carries FINISHED and gets no page pass again; the site passes read every page.
import {existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync, readFileSync} from "node:fs";
import {dirname, join} from "node:path";
import {Page} from "./page.mjs";
import {ContractError} from "./contract.mjs";
import {INVENTORY_META} from "./inventory.mjs";
import {PASSES} from "./passes/index.mjs";

export const FINISHED = "course-postrender";

/** The site's pages: its HTML files outside Quarto's libraries and the vendored scripts. */
export function sitePages(site, dir = site) {
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return ["site_libs", "vendor", "_extensions"].includes(e.name) && dir === site ? [] : sitePages(site, path);
    return e.name.endsWith(".html") ? [path] : [];
  }).sort();
}

/** The context every pass gets: the site, its pages, the cache, and the files to write at the end. */
export class Site {
  /** `inventory(page)`: the inventory of a page whose head carries none (a page a test makes by hand) */
  constructor({dir, project, cache, quartoShare, inventory = null}) {
    this.dir = dir;
    this.project = project;
    this.cache = cache;
    this.quartoShare = quartoShare;
    this.pages = sitePages(dir).map((file) => new Page(dir, file));
    for (const page of this.pages) if (!page.inventory && inventory) page.setInventory(inventory(page));
    this.writes = new Map();        // path -> text or bytes
    this.removals = new Set();
  }

  /** `path` (in the site) to be removed once every pass has run. */
  remove(path) {
    this.removals.add(path);
  }

  /** The site's files under `sub` whose names `keep` accepts, as they will be once written: [{path, text}]. */
  files(sub, keep) {
    const walk = (dir) => !existsSync(dir) ? [] : readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : keep(e.name) ? [join(dir, e.name)] : []);
    const root = join(this.dir, sub);
    const paths = new Set([...walk(root), ...[...this.writes.keys()].filter((p) => p.startsWith(root) && keep(p.split(/[\\/]/).pop()))]);
    return [...paths].filter((p) => !this.removals.has(p)).sort()
      .map((path) => ({path, text: this.writes.has(path) ? Buffer.from(this.writes.get(path)).toString("utf8") : readFileSync(path, "utf8")}));
  }

  /** `data` to be written to `path` (in the site) once every pass has run. */
  write(path, data) {
    this.writes.set(path, data);
  }

}

/** Run `passes` over `site`; {pass: {page: changes}} of what each did.  Every page to finish must
    carry its inventory (inventory.mjs), by which the passes choose their pages. */
export async function runPasses(site, passes = PASSES) {
  const report = {};
  for (const page of site.pages) {
    // the one page no author wrote: the redirect Quarto writes as index.html when a render leaves the home page out
    const redirect = page.$('head > meta[http-equiv="refresh"]').length > 0 && !page.$("body").text().trim();
    if (!page.finished && !page.inventory && !redirect)
      throw new ContractError("inventory", page.rel, `<meta name="${INVENTORY_META}"> (what the author wrote, counted by _extensions/course/inventory.lua)`);
  }
  for (const pass of passes) {
    report[pass.name] = {};
    if (pass.site) {
      report[pass.name]["(site)"] = await pass.apply(site);
      continue;
    }
    for (const page of site.pages) {
      if (page.finished || !page.inventory || !pass.targets(page)) continue;
      const changes = await pass.apply(page, site);
      if (!changes) throw new ContractError(pass.name, page.rel, "markup it changes (it changed nothing on a page it targets)");
      report[pass.name][page.rel] = changes;
    }
  }
  return report;
}

function writeAtomically(path, data) {
  mkdirSync(dirname(path), {recursive: true});
  writeFileSync(`${path}.tmp`, data);
  renameSync(`${path}.tmp`, path);
}

/** Finish the rendered site in `site.dir`: run the passes, then write the pages and files they changed. */
export async function finishSite(site, passes = PASSES) {
  for (const page of site.pages) page.finished = page.$(`meta[name="${FINISHED}"]`).length > 0;
  for (const page of site.pages) {
    if (!page.finished) page.$("head").append(`<meta name="${FINISHED}" content="_extensions/course/post-render">\n`);
  }
  const report = await runPasses(site, passes);
  for (const path of site.removals) rmSync(path, {force: true});
  for (const [path, data] of site.writes) {
    if (!existsSync(path) || !readFileSync(path).equals(Buffer.from(data))) writeAtomically(path, data);
  }
  for (const page of site.pages) {
    for (const [name, text] of page.besides) writeAtomically(join(page.dir, name), text);
    const html = page.html();
    if (html !== page.original) writeAtomically(page.file, html);
  }
  return report;
}
