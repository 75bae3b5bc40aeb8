// The course's in-page scripts (_extensions/course/post-render/passes/*.js), read once, for the passes
// that put one into a page.
import {readFileSync} from "node:fs";
import {dirname, join, resolve} from "node:path";
import {fileURLToPath} from "node:url";

export const PAGE_SCRIPTS = join(dirname(fileURLToPath(import.meta.url)), "passes");
const read = new Map();

/** The text of page script `name` (without .js), ending in a newline; its opening comment, which
    says why it exists (for the maintainer, not the reader's browser), is left out of the page. */
export function pageScript(name) {
  const text = () => readFileSync(join(PAGE_SCRIPTS, `${name}.js`), "utf8").replace(/^(\/\/[^\n]*\n)+/, "").trimEnd();
  if (!read.has(name)) read.set(name, `\n${text()}\n`);
  return read.get(name);
}
