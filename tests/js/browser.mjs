// Helpers for the browser tests: a static file server on 127.0.0.1, and Debian's Chromium driven
// by playwright-core with every non-local request blocked (the classroom with no Wi-Fi).
import {createServer} from "node:http";
import {readFile, stat} from "node:fs/promises";
import {existsSync} from "node:fs";
import {join, normalize, extname} from "node:path";
import {execFileSync} from "node:child_process";
import {gzipSync} from "node:zlib";
import assert from "node:assert/strict";
import {watchRequests} from "../../scripts/network_quiet.mjs";

export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
export const CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"];

const TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml", ".json": "application/json", ".woff": "font/woff",
  ".woff2": "font/woff2", ".png": "image/png", ".ipynb": "application/json", ".txt": "text/plain; charset=utf-8"};

export function onPath(cmd) {
  try {
    execFileSync("sh", ["-c", `command -v ${cmd}`], {stdio: "ignore"});
    return true;
  } catch {
    return false;
  }
}

export const hasChromium = () => existsSync(CHROMIUM);

// text is sent gzipped when the browser accepts it, as GitHub Pages and most hosts serve it
const COMPRESSIBLE = new Set([".html", ".js", ".mjs", ".css", ".svg", ".json", ".ipynb", ".txt"]);
const gzipped = new Map();

function body(file, bytes, req) {
  if (!COMPRESSIBLE.has(extname(file)) || !/\bgzip\b/.test(req.headers["accept-encoding"] || "")) return {bytes};
  const key = `${file}:${bytes.length}`;
  if (!gzipped.has(key)) gzipped.set(key, gzipSync(bytes));
  return {bytes: gzipped.get(key), encoding: "gzip"};
}

/** Serve `root` on 127.0.0.1 (a random port); `virtual` maps URL paths to in-memory pages.  With
 * `base` (the path of the site's site-url, such as /module-03-sequence-models/), addresses below it
 * are served too, as GitHub Pages serves them (the 404 page's links are rooted there). */
export async function serve(root, virtual = {}, {base = "/"} = {}) {
  const server = createServer(async (req, res) => {
    let path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    if (base !== "/" && path.startsWith(base)) path = "/" + path.slice(base.length);
    if (virtual[path] !== undefined) {
      res.writeHead(200, {"content-type": TYPES[extname(path)] || "text/html; charset=utf-8"});
      return res.end(virtual[path]);
    }
    let file = normalize(join(root, path));
    if (!file.startsWith(normalize(root))) return res.writeHead(403).end();
    try {
      if ((await stat(file)).isDirectory()) file = join(file, "index.html");
      const {bytes, encoding} = body(file, await readFile(file), req);
      res.writeHead(200, {"content-type": TYPES[extname(file)] || "application/octet-stream",
        ...(encoding ? {"content-encoding": encoding, "vary": "accept-encoding"} : {})});
      res.end(bytes);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return {server, origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((ok) => server.close(ok))};
}

/**
 * Launch Chromium with a page that may only talk to `origin`.  Returns {browser, page, problems}
 * where problems.console / problems.pageErrors / problems.blocked / problems.failed collect
 * everything that went wrong (the tests assert they stay empty).
 */
export async function openOffline(origin) {
  const {chromium} = await import("playwright-core");
  const browser = await chromium.launch({executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true});
  return {browser, ...(await offlinePage(browser, origin))};
}

/** A new context of `browser` (its own cache, `viewport`) whose page may only talk to `origin`;
 * `requests.quiet()` waits until the page's requests have all finished (scripts/network_quiet.mjs). */
export async function offlinePage(browser, origin, viewport = {width: 1280, height: 900}) {
  const context = await browser.newContext({viewport, serviceWorkers: "block"});
  const problems = {console: [], pageErrors: [], blocked: [], failed: []};
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(origin + "/") || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
    problems.blocked.push(url);
    return route.abort("internetdisconnected");
  });
  const page = await context.newPage();
  const requests = watchRequests(page);   // requests.quiet(): loading done (in place of "networkidle")
  page.on("console", (msg) => { if (msg.type() === "error") problems.console.push(msg.text()); });
  page.on("pageerror", (err) => problems.pageErrors.push(String(err)));
  page.on("requestfailed", (req) => {
    // the browser's own fetch of the tab's icon, cut off when a test moves the page on before it
    // ends, is no failure (tests/js/site-pages.test.mjs checks that every page's icon loads)
    if (req.failure()?.errorText === "net::ERR_ABORTED" && /\/favicon\.(svg|ico)$/.test(req.url())) return;
    problems.failed.push(`${req.url()} (${req.failure()?.errorText})`);
  });
  page.on("response", (res) => { if (res.status() >= 400) problems.failed.push(`${res.url()} (HTTP ${res.status()})`); });
  return {context, page, problems, requests};
}

/** The `d` attributes of the paths in the first Plot chart under `scope` (a CSS selector). */
export async function plotPaths(page, scope = ".gradient-demo") {
  return page.$$eval(`${scope} svg[class^="plot"] path`, (ps) => ps.map((p) => p.getAttribute("d")).join("|"));
}
