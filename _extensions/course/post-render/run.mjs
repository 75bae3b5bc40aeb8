#!/usr/bin/env node
// The one post-render step of `quarto render` (_quarto.yml: project: post-render):
//
//   node _extensions/course/post-render/run.mjs          # finishes Quarto's output folder (what `quarto render` runs)
//   node _extensions/course/post-render/run.mjs DIR      # another rendered site (no cache)
//
// What the passes do, and in which order, is passes/index.mjs; how they run, pipeline.mjs.  A pass
// that misses the Quarto markup it expects stops the render with its name, the page and what is missing.
// POSTRENDER_RAW=DIR keeps a copy of each page (and search.json) as Quarto wrote it, and what each pass changed
// (report.json), which tests/js/postrender-contract.test.mjs and the planted-change catalogue (tests/contracts/) read.
import {cpSync, existsSync, mkdirSync, realpathSync, writeFileSync} from "node:fs";
import {dirname, join, resolve} from "node:path";
import {execFileSync} from "node:child_process";
import {fileURLToPath} from "node:url";
import {Cache} from "./cache.mjs";
import {Site, finishSite} from "./pipeline.mjs";
import {ContractError} from "./contract.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** Quarto's resources folder ($QUARTO_SHARE_PATH, which Quarto sets for its scripts, else `quarto --paths`). */
export function quartoShare() {
  if (process.env.QUARTO_SHARE_PATH) return process.env.QUARTO_SHARE_PATH;
  try {
    return execFileSync("quarto", ["--paths"], {encoding: "utf8"}).split("\n")[1].trim();
  } catch {
    return null;
  }
}

async function main() {
  const explicit = process.argv[2];
  const dir = resolve(explicit ?? process.env.QUARTO_PROJECT_OUTPUT_DIR ?? join(ROOT, "_site"));
  const project = resolve(process.env.QUARTO_PROJECT_DIR ?? ROOT);
  // Quarto's scratch folder keeps the cache between renders of this project
  const cache = new Cache(explicit || !existsSync(join(project, ".quarto")) ? null : join(project, ".quarto", "course-postrender"));
  const t0 = Date.now();
  const site = new Site({dir, project, cache, quartoShare: quartoShare()});
  if (process.env.POSTRENDER_RAW) {
    for (const rel of [...site.pages.map((p) => p.rel), "search.json"].filter((r) => existsSync(join(dir, r)))) {
      mkdirSync(dirname(join(process.env.POSTRENDER_RAW, rel)), {recursive: true});
      cpSync(join(dir, rel), join(process.env.POSTRENDER_RAW, rel));
    }
  }
  const report = await finishSite(site);
  if (process.env.POSTRENDER_RAW) writeFileSync(join(process.env.POSTRENDER_RAW, "report.json"), JSON.stringify(report, null, 1));
  if (!explicit && process.env.QUARTO_PROJECT_RENDER_ALL) cache.prune();
  const ran = Object.values(report).filter((pages) => Object.keys(pages).length).length;
  console.log(`postrender: ${ran} passes over ${site.pages.filter((p) => !p.finished).length} pages in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

// (compared as real paths: a project may reach the extension through a link, as the contract fixture does)
if (process.argv[1] && realpathSync(resolve(process.argv[1])) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(`postrender: ${err.message}`);
    // the same, for a program that reads it (the planted-change catalogue, tests/contracts/)
    if (err instanceof ContractError) console.error(`postrender-contract: ${JSON.stringify({pass: err.pass, page: err.page, expected: err.expected, found: err.found, markup: err.markup})}`);
    process.exit(1);
  });
}
