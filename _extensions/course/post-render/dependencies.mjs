// What the course takes from Quarto (quarto-dependencies.json), read once: the passes take their
// lists from it (the head's scripts, the classes Quarto's scripts add), and checkDependencies() runs
// the entries' render-time checks for the pass that owns them, on the pages the inventory says use
// them, so that a dependency of a page script (in the browser) missing from Quarto's output stops the
// render too, naming the pass, the page and the entry.
import {existsSync, readFileSync} from "node:fs";
import {join} from "node:path";
import {ContractError} from "./contract.mjs";
import {expectCount} from "./inventory.mjs";

export const DEPENDENCIES_FILE = new URL("./quarto-dependencies.json", import.meta.url);
export const DEPENDENCIES = JSON.parse(readFileSync(DEPENDENCIES_FILE, "utf8")).dependencies;

/** The entry `id` of the list (an Error when the list has none: a pass names only listed entries). */
export function dependency(id) {
  const entry = DEPENDENCIES.find((d) => d.id === id);
  if (!entry) throw new Error(`quarto-dependencies.json has no entry "${id}"`);
  return entry;
}

const checked = new Map();   // site-wide checks, once per site folder

function fileContains(pass, site, root, rel, strings, entry) {
  const path = join(root, rel);
  const text = existsSync(path) ? readFileSync(path, "utf8") : null;
  if (text === null) throw new ContractError(pass, rel, `the file itself (${entry.id}: ${entry.name})`);
  for (const s of strings) if (!text.includes(s)) throw new ContractError(pass, rel, `${JSON.stringify(s)} (${entry.id}: ${entry.name})`, "none", {markup: s});
}

/** Run the checks of the entries `pass` owns on `page` (a page pass) or on the site (page null). */
export function checkDependencies(pass, page, site) {
  for (const entry of DEPENDENCIES.filter((d) => d.pass === pass && d.check)) {
    const c = entry.check;
    if (c["site-files"] || c["deck-files"] || c["quarto-file"]) {
      // only where a page this render finishes needs it: a deck, an html page, or a page whose inventory has `when`
      const needs = (p) => !p.finished && p.inventory && (c["deck-files"] ? p.isDeck : c.when ? p.inventory[c.when] > 0 : !p.isDeck);
      if (!site.pages.some(needs)) continue;
      const key = `${site.dir}\0${entry.id}`;
      if (checked.has(key)) continue;
      if (c["quarto-file"]) {
        if (!site.quartoShare) throw new ContractError(pass, "Quarto's resources", c["quarto-file"]);
        fileContains(pass, site, site.quartoShare, c["quarto-file"], c.contains, entry);
      }
      for (const rel of c["site-files"] ?? c["deck-files"] ?? []) fileContains(pass, site, site.dir, rel, c.contains, entry);
      checked.set(key, true);
      continue;
    }
    if (!page || (page.isDeck && !c.deck)) continue;
    if (c["page-script"]) {
      const script = page.$("script:not([src])").filter((i, el) => page.$(el).text().includes(c["page-script"]));
      if (!script.length) throw new ContractError(pass, page.rel, `Quarto's inline script with ${c["page-script"]} (${entry.id}: ${entry.name})`);
      for (const s of c.contains) {
        if (!script.text().includes(s)) throw new ContractError(pass, page.rel, `${JSON.stringify(s)} in Quarto's inline script with ${c["page-script"]} (${entry.id})`, "none", {markup: s});
      }
      continue;
    }
    const expected = c.per === "page" ? 1 : page.inventory[c.per];
    if (c.cells) {
      const cells = new Set(page.$(c.cells).toArray().map((el) => page.$(el).closest("div.cell")[0]).filter(Boolean));
      expectCount(pass, page, expected, cells.size, `<div class="cell"> holding ${c.cells} (${entry.id})`, `one per ${c.per} of the inventory`);
    } else {
      expectCount(pass, page, expected, page.$(c.count).length, `${c.count} (${entry.id})`, c.per === "page" ? "one on every page" : `one per ${c.per} of the inventory`);
    }
  }
}
