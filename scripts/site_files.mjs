// The rendered site's files, for the post-render steps written in JavaScript (typeset, site_stamp,
// purge_css): which files a folder holds, and writing one so that a crash never leaves it half written.
import {existsSync, readdirSync, readFileSync, renameSync, writeFileSync} from "node:fs";
import {join} from "node:path";

/** Every file under `dir` whose name `keep` accepts, leaving out the folders named in `skip`. */
export function filesUnder(dir, keep, skip = []) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return skip.includes(e.name) ? [] : filesUnder(path, keep, skip);
    return keep(e.name) ? [path] : [];
  });
}

/** The site's pages: its HTML files outside Quarto's libraries and the vendored scripts. */
export const sitePages = (site) => filesUnder(site, (name) => name.endsWith(".html"), ["site_libs", "vendor"]);

/** Write `text` to `path` through a temporary file and a rename, unless it holds exactly that already;
    whether it was written. */
export function writeIfChanged(path, text) {
  if (existsSync(path) && readFileSync(path, "utf8") === text) return false;
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
  return true;
}
