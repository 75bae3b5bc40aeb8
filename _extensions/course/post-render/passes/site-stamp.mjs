// Each page's footer: the site's version ("Site version 1a2b3c4d5e6f (2026-12-01) · rendered with
// Quarto 1.11.0") and, on a module's pages, its measured data's provenance ("Results: Lab 3 at full
// settings, seed 0, on …, 2026-11-30 (data/<id>/results.json)").  _quarto.yml's page-footer holds the
// two empty spans.  The commit is $GITHUB_SHA on GitHub, else the checkout's HEAD ("+changes" when
// tracked files differ from it), its date the commit's date (so a re-render of one commit stamps the
// same text); outside a git checkout the commit reads "not in git".
import {existsSync, readFileSync} from "node:fs";
import {join} from "node:path";
import {execFileSync} from "node:child_process";
import YAML from "yaml";
import {expectSome} from "../contract.mjs";

const run = (cmd, args, cwd) => {
  try {
    return execFileSync(cmd, args, {cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"]}).trim();
  } catch {
    return null;
  }
};

export function quartoVersion() {
  const bin = process.env.QUARTO_BIN_PATH ? join(process.env.QUARTO_BIN_PATH, "quarto") : "quarto";
  return run(existsSync(bin) ? bin : "quarto", ["--version"]) ?? "unknown";
}

/** {commit, date, changed} of the checkout in `cwd` (or $GITHUB_SHA's commit on GitHub). */
export function siteVersion(cwd) {
  const sha = process.env.GITHUB_SHA || run("git", ["rev-parse", "HEAD"], cwd);
  if (!sha) return {commit: "not in git", date: null, changed: false};
  const date = run("git", ["show", "-s", "--format=%cs", sha], cwd);
  const changed = !process.env.GITHUB_SHA && Boolean(run("git", ["status", "--porcelain", "--untracked-files=no"], cwd));
  return {commit: sha.slice(0, 12), date, changed};
}

export function stampText({commit, date, changed}, quarto) {
  return `Site version ${commit}${changed ? "+changes" : ""}${date ? ` (${date})` : ""} · rendered with Quarto ${quarto}`;
}

/** The provenance line of module `id`'s measured data, or "" when it has none. */
export function provenanceText(id, root) {
  const file = join(root, "modules", id, "_metadata.yml"), info = join(root, "modules", id, "module.yml");
  if (!existsSync(file)) return "";
  const p = YAML.parse(readFileSync(file, "utf8"))?.data?.provenance;
  if (!p?.run_phrase) return "";
  const number = existsSync(info) ? YAML.parse(readFileSync(info, "utf8"))?.number : null;
  return `Results: Lab ${number ?? id} at ${p.run_phrase}${p.date ? `, ${p.date}` : ""} (data/${id}/results.json)`;
}

let stamp = null;
export default {
  name: "site-stamp",
  // every page of the html format (its inventory says which)
  targets: (page) => !page.isDeck,
  apply(page, site) {
    stamp ??= stampText(siteVersion(site.project), quartoVersion());
    expectSome(this.name, page, "span.site-version", '<span class="site-version"> in the footer').text(stamp);
    const id = /^modules\/([^/]+)\//.exec(page.rel)?.[1];
    expectSome(this.name, page, "span.data-provenance", '<span class="data-provenance"> in the footer').text(id ? provenanceText(id, site.project) : "");
    return 1;
  },
};
