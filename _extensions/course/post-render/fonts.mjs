// A font cut to the characters a site uses, with fonttools' pyftsubset (requirements.txt), kept in
// the post-render's cache: a render that uses no new character does not cut it again.
import {execFileSync} from "node:child_process";
import {mkdtempSync, readFileSync, rmSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {Cache} from "./cache.mjs";

/** `original` (a font file) cut to `codepoints`, as WOFF bytes. */
export function cutFont(original, codepoints) {
  const dir = mkdtempSync(join(tmpdir(), "font-"));
  try {
    const out = join(dir, "cut.woff");
    const unicodes = codepoints.map((c) => `U+${c.toString(16).toUpperCase().padStart(4, "0")}`).join(",");
    execFileSync(process.env.PYTHON ?? "python3", ["-m", "fontTools.subset", original, `--unicodes=${unicodes}`,
      "--flavor=woff", "--layout-features=*", `--output-file=${out}`], {stdio: ["ignore", "ignore", "pipe"]});
    return readFileSync(out);
  } finally {
    rmSync(dir, {recursive: true, force: true});
  }
}

/** cutFont through the site's cache. */
export async function cutFontCached(cache, name, original, codepoints) {
  const bytes = readFileSync(original);
  const b64 = await cache.get(name, Cache.key(bytes, codepoints), () => cutFont(original, codepoints).toString("base64"));
  return Buffer.from(b64, "base64");
}
