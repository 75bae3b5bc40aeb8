// Helpers shared by the .qmd tests: find every .qmd of the project, expand Quarto includes and
// {{< meta >}} values (the project's one include expansion), pull out the ```{ojs} cells, and find a
// pandoc binary (pypandoc's, or one on PATH).
import {readdirSync, readFileSync, existsSync} from "node:fs";
import {join, dirname, relative, resolve, sep} from "node:path";
import {execFileSync} from "node:child_process";
import {fileURLToPath} from "node:url";
import YAML from "yaml";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
// (tests/contracts/: the post-render's contract fixture, rendered in a copy of its own, not a page of the course)
const SKIP = new Set(["node_modules", "_site", ".quarto", "vendor", ".git", "build", "_freeze", "contracts"]);

/** Every .qmd under the project root (pages and underscore-prefixed include partials), sorted;
 * with `ext`, every file of that ending instead (".ojs": the demos' OJS partials). */
export function qmdFiles(dir = ROOT, ext = ".qmd") {
  const out = [];
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    if (entry.isDirectory()) {
      if (!SKIP.has(entry.name) && !entry.name.startsWith(".")) out.push(...qmdFiles(join(dir, entry.name), ext));
    } else if (entry.name.endsWith(ext)) out.push(join(dir, entry.name));
  }
  return out.sort();
}

export const rel = (file) => relative(ROOT, file);
export const isPartial = (file) => file.split("/").pop().startsWith("_");

// Quarto expands an include only where the shortcode starts a line (leading spaces allowed;
// quarto-cli #1767), before it parses the page, so also inside an HTML comment.  The path is relative
// to the including file, or to the project when it starts with "/" (/_extensions/course/demo-setup.ojs).
const INCLUDE = /^([ \t]*)\{\{<\s*include\s+(\S+?)\s*>\}\}/gm;
// {{< meta data.KEY >}}: a value of the page's metadata (its module's _metadata.yml, under `data:`)
const META = /\{\{<\s*meta\s+([\w.\-]+)\s*>\}\}/g;

/** Where an include shortcode in `file` points: relative to the file, or the project root for "/...". */
export function includeTarget(file, target) {
  return target.startsWith("/") ? join(ROOT, target) : join(dirname(file), target);
}

/** A file that scripts/pages/site_data.py writes (modules/<id>/_generated/*, modules/<id>/_metadata.yml): its
 * copy under generatedRoot when there is one (site_data --out-root), else the file itself. */
function generatedFile(file, generatedRoot) {
  if (!generatedRoot) return file;
  const r = relative(ROOT, file).split(sep);
  const generated = r[0] === "modules" && (r[2] === "_generated" || (r.length === 3 && r[2] === "_metadata.yml"));
  return generated && existsSync(join(generatedRoot, ...r)) ? join(generatedRoot, ...r) : file;
}

/**
 * The directory metadata Quarto gives a page: every _metadata.yml from the project root down to the
 * page's folder, merged (a deeper file wins, key by key), as {{< meta >}} reads it.  For a module's
 * page that is modules/<id>/_metadata.yml, whose `data:` holds the module's page values.
 */
export function pageMetadata(page, {generatedRoot = null} = {}) {
  const merge = (a, b) => {
    if (!isMap(a) || !isMap(b)) return b;
    const out = {...a};
    for (const [k, v] of Object.entries(b)) out[k] = k in a ? merge(a[k], v) : v;
    return out;
  };
  let meta = {};
  const folders = relative(ROOT, dirname(resolve(page))).split(sep).filter(Boolean);
  if (folders[0] === "..") return meta;                       // not a page of this project
  for (let i = 0; i <= folders.length; i++) {
    const file = generatedFile(join(ROOT, ...folders.slice(0, i), "_metadata.yml"), generatedRoot);
    if (existsSync(file)) meta = merge(meta, YAML.parse(readFileSync(file, "utf8")) ?? {});
  }
  return meta;
}
const isMap = (x) => x !== null && typeof x === "object" && !Array.isArray(x);

/** A dotted key of the metadata ("data.models.lstm.nats"): its scalar as text, or undefined. */
export function metaValue(meta, key) {
  let value = meta;
  for (const part of key.split(".")) {
    if (!isMap(value) || !(part in value)) return undefined;
    value = value[part];
  }
  return ["string", "number", "boolean"].includes(typeof value) ? String(value) : undefined;
}

/**
 * The text of a page as Quarto reads it: {{< include path >}} shortcodes replaced (recursively) by the
 * files, then {{< meta KEY >}} by the page's directory metadata (pageMetadata: the page's, not the
 * partial's folder decides).  The project's ONE include expansion; tests in other languages run it as
 * `node tests/js/qmd-files.mjs expand PAGE` (see the end of this file).
 *   meta: false            leave {{< meta >}} as it is
 *   generatedRoot: DIR     look up generated files (modules/<id>/_generated/*, modules/<id>/_metadata.yml)
 *                          under DIR first: the output of `python3 -m scripts.pages.site_data --out-root DIR`
 *   leave: (file) => bool  an include of this file is replaced by nothing
 *   strict: true           a missing include, an include loop or an unknown meta key throws; otherwise
 *                          it is left as written (another test's job)
 */
export function expandIncludes(page, {meta = true, generatedRoot = null, leave = () => false, strict = false} = {}) {
  const locate = (file) => generatedFile(file, generatedRoot);
  const expand = (file, seen) => {
    const text = readFileSync(locate(file), "utf8");
    return text.replace(INCLUDE, (whole, indent, target) => {
      const path = includeTarget(file, target);
      if (seen.includes(path)) {
        if (strict) throw new Error(`include loop: ${[...seen, path].map(rel).join(" -> ")}`);
        return whole;
      }
      if (leave(path)) return indent;
      if (!existsSync(locate(path))) {
        if (strict) throw new Error(`${rel(file)} includes ${target}, which does not exist (${rel(path)})`);
        return whole;
      }
      return indent + expand(path, [...seen, path]);
    });
  };
  const text = expand(resolve(page), [resolve(page)]);
  if (!meta) return text;
  const metadata = pageMetadata(page, {generatedRoot});
  return text.replace(META, (whole, key) => {
    const value = metaValue(metadata, key);
    if (value === undefined && strict) throw new Error(`${rel(page)}: {{< meta ${key} >}} is not in the page's _metadata.yml`);
    return value ?? whole;
  });
}

/** The ```{ojs} code blocks of a .qmd text: [{source, line}] (line is 1-based, of the fence). */
export function ojsBlocks(text) {
  const lines = text.split("\n");
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*\{ojs\b[^}]*\}\s*$/.exec(lines[i]);
    if (!open) continue;
    const fence = open[2];
    const body = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[j]);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length) break;
      body.push(lines[j]);
    }
    blocks.push({source: body.join("\n"), line: i + 1});
    i = j;
  }
  return blocks;
}

/** A pandoc binary (the one pypandoc-binary ships, as in requirements.txt, or pandoc on PATH). */
export function findPandoc() {
  const candidates = [];
  if (process.env.PANDOC) candidates.push(process.env.PANDOC);
  for (const py of [process.env.PY, "python3", "python"].filter(Boolean)) {
    try {
      candidates.push(execFileSync(py, ["-c", "import pypandoc; print(pypandoc.get_pandoc_path())"],
        {encoding: "utf8", stdio: ["ignore", "pipe", "ignore"]}).trim());
      break;
    } catch {}
  }
  candidates.push("pandoc");
  for (const c of candidates) {
    try {
      execFileSync(c, ["--version"], {stdio: "ignore"});
      return c;
    } catch {}
  }
  return null;
}

// The same for tests in other languages (pytest):
//   node tests/js/qmd-files.mjs expand PAGE [--generated-root DIR] [--leave GLOB]... [--no-meta] [--strict]
// prints PAGE's text with its includes and meta values expanded; --leave drops includes of files whose
// project-relative path matches GLOB (* within a folder name, ** across folders); exit 1 with the
// reason on an error (--strict: a missing include, an include loop or an unknown meta key).
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [command, page, ...rest] = process.argv.slice(2);
  const options = {leave: []};
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === "--generated-root") options.generatedRoot = resolve(rest[++i]);
    else if (rest[i] === "--leave") options.leave.push(globRegExp(rest[++i]));
    else if (rest[i] === "--no-meta") options.meta = false;
    else if (rest[i] === "--strict") options.strict = true;
    else { console.error(`unknown option ${rest[i]}`); process.exit(2); }
  }
  if (command !== "expand" || !page) {
    console.error("usage: node tests/js/qmd-files.mjs expand PAGE [--generated-root DIR] [--leave GLOB]... [--no-meta] [--strict]");
    process.exit(2);
  }
  try {
    const leave = (file) => options.leave.some((re) => re.test(rel(file)));
    process.stdout.write(expandIncludes(resolve(page), {...options, leave}));
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}

function globRegExp(glob) {
  const re = glob.split("**").map((part) => part.split("*").map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join("[^/]*")).join(".*");
  return new RegExp(`^${re}$`);
}
