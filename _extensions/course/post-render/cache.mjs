// The post-render's one cache, in Quarto's scratch folder (.quarto/course-postrender/): a pass asks
// for a value by a key made of everything it depends on, and computes it only when that key is new
// (typeset formulas, cut fonts, purged stylesheets).  After a render of every page, entries no pass
// asked for are removed.  A missing or unreadable entry is only a cache miss.
import {createHash} from "node:crypto";
import {existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, renameSync} from "node:fs";
import {join} from "node:path";

export class Cache {
  /** `dir`: the folder, or null for no cache (a site rendered elsewhere, a test) */
  constructor(dir) {
    this.dir = dir;
    this.used = new Set();
  }

  static key(...parts) {
    const h = createHash("sha256");
    for (const p of parts) h.update(typeof p === "string" || Buffer.isBuffer(p) ? p : JSON.stringify(p)).update("\0");
    return h.digest("hex").slice(0, 24);
  }

  /** The value kept under `name` and `key`, else compute() (async allowed), kept for next time. */
  async get(name, key, compute) {
    const file = this.dir && join(this.dir, `${name}-${key}.json`);
    if (file) this.used.add(`${name}-${key}.json`);
    if (file && existsSync(file)) {
      try {
        return JSON.parse(readFileSync(file, "utf8"));
      } catch { /* cut short: computed again */ }
    }
    const value = await compute();
    if (file) {
      mkdirSync(this.dir, {recursive: true});
      writeFileSync(`${file}.tmp`, JSON.stringify(value));
      renameSync(`${file}.tmp`, file);
    }
    return value;
  }

  /** Remove the entries this run did not use (only after a render of every page). */
  prune() {
    if (!this.dir || !existsSync(this.dir)) return;
    for (const name of readdirSync(this.dir)) if (!this.used.has(name)) rmSync(join(this.dir, name), {force: true});
  }
}
