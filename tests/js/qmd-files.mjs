// Helpers shared by the .qmd tests: find every .qmd of the project, expand Quarto includes,
// pull out the ```{ojs} cells, and find a pandoc binary (pypandoc's, or one on PATH).
import {readdirSync, readFileSync, existsSync} from "node:fs";
import {join, dirname, relative, resolve} from "node:path";
import {execFileSync} from "node:child_process";
import {fileURLToPath} from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SKIP = new Set(["node_modules", "_site", ".quarto", "vendor", ".git", "build", "_freeze"]);

/** Every .qmd under the project root (pages and underscore-prefixed include partials), sorted. */
export function qmdFiles(dir = ROOT) {
  const out = [];
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    if (entry.isDirectory()) {
      if (!SKIP.has(entry.name) && !entry.name.startsWith(".")) out.push(...qmdFiles(join(dir, entry.name)));
    } else if (entry.name.endsWith(".qmd")) out.push(join(dir, entry.name));
  }
  return out.sort();
}

export const rel = (file) => relative(ROOT, file);
export const isPartial = (file) => file.split("/").pop().startsWith("_");

/** The text of a page with {{< include path >}} shortcodes replaced (recursively) by the files. */
export function expandIncludes(file, seen = new Set()) {
  const text = readFileSync(file, "utf8");
  if (seen.has(file)) return text;
  seen.add(file);
  return text.replace(/\{\{<\s*include\s+([^\s>]+)\s*>\}\}/g, (whole, target) => {
    const path = target.startsWith("/") ? join(ROOT, target) : join(dirname(file), target);
    return existsSync(path) ? expandIncludes(path, new Set(seen)) : whole; // a missing include is another test's job
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
