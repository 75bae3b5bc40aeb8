#!/usr/bin/env node
// The live model's speed and weight (issue 44 point 5), Module 3's own benchmark (its live sampling demo): it prints and logs, not a test.
//
//   node modules/03-sequence-models/bench/live_model.mjs SITE_DIR [--log]     # SITE_DIR: a rendered _site/ whose data/ holds the weights
//
// Measures, on this machine:
//   engine    the hand-written JavaScript forward pass (live-model.js) in node: LSTM and RNN steps per second,
//             from the site's own weights, against the floor (200 characters a second);
//   weight    what the first Write fetches: the two modules (gzipped, as the site is served) and one model's
//             safetensors (served as it is: a host does not compress application/octet-stream);
//   page      in Debian's Chromium at 1280 x 900, the module page served from 127.0.0.1 (gzipped text):
//             the requests and bytes at load and after scrolling through the page (nothing of the live demo
//             may be among them), then, with the CPU slowed 4x (CDP Emulation.setCPUThrottlingRate), the
//             click on Write: time to the first character, characters a second over the 300, and the
//             longest main-thread task (PerformanceObserver 'longtask') from the click to the last character.
// --log appends the result to data/live-model.md.
import {readFileSync, appendFileSync, readdirSync} from "node:fs";
import {join, resolve, dirname} from "node:path";
import {fileURLToPath, pathToFileURL} from "node:url";
import {gzipSync} from "node:zlib";
import {cpus} from "node:os";
import {serve, CHROMIUM, CHROMIUM_ARGS} from "../../../tests/js/browser.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const MODULE = "03-sequence-models";
const site = resolve(process.argv[2] ?? "");
const log = process.argv.includes("--log");
const dataDir = join(site, "data", MODULE);
const results = JSON.parse(readFileSync(join(dataDir, "results.json"), "utf8"));
const record = results.provenance.weights;
if (!record) throw new Error(`${dataDir}/results.json records no weights (provenance.weights): build them first`);

const model = await import(pathToFileURL(join(ROOT, "modules", MODULE, "live-model.js")).href);
const sampling = await import(pathToFileURL(join(ROOT, "modules", MODULE, "live-sampling.js")).href);
const vocab = results.sampling.vocab;
const out = {date: new Date().toISOString(), cpus: `${cpus().length} × ${cpus()[0]?.model ?? "?"}`, settings: results.provenance.settings,
  load: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")};

// ---- engine: steps a second in node, and the start-up (parse and check the file)
out.engine = {};
for (const name of ["lstm", "rnn"]) {
  const bytes = readFileSync(join(dataDir, record[name].file));
  const t0 = performance.now();
  const parsed = model.checkModel(model.parseSafetensors(bytes), name, record[name].tensors, vocab);
  const net = model.makeModel(name, parsed, vocab);
  const startMs = performance.now() - t0;
  const draw = sampling.uniforms(1);
  let n = 0;
  const t1 = performance.now();
  while (performance.now() - t1 < 1000) {
    n += sampling.writtenTokens(sampling.generate(net, [0], 200, {tau: 1, k: vocab.length, p: 1}, draw)).length;
  }
  out.engine[name] = {start_ms: +startMs.toFixed(1), chars_per_s: Math.round(n / ((performance.now() - t1) / 1000))};
}

// ---- weight: what the first Write fetches
const gz = (p) => gzipSync(readFileSync(p), {level: 9}).length;
const code = ["live-model.js", "live-sampling.js"].reduce((s, f) => s + gz(join(site, "modules", MODULE, f)), 0);
out.weight = {code_gzip: code, lstm: record.lstm.bytes, rnn: record.rnn.bytes,
  lstm_gzip: gz(join(dataDir, record.lstm.file)), first_write_lstm: code + record.lstm.bytes};

// ---- page: requests at load, then the click at 4x slow-down
const {chromium} = await import("playwright-core");
const server = await serve(site);
const browser = await chromium.launch({executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true});
try {
  const context = await browser.newContext({viewport: {width: 1280, height: 900}});
  const page = await context.newPage();
  const requests = [];
  // bytes as sent (gzipped where the server gzips), headers included
  page.on("requestfinished", async (q) => {
    const sizes = await q.sizes();
    requests.push({url: q.url().replace(server.origin, ""), bytes: sizes.responseBodySize + sizes.responseHeadersSize});
  });
  await page.goto(`${server.origin}/modules/${MODULE}/index.html`, {waitUntil: "load"});
  await page.waitForTimeout(1500);
  const atLoad = requests.slice();
  // a reader's scroll through the page, opening the sampling callout (the demos draw as they near the screen)
  await page.evaluate(async () => {
    for (let y = 0; y < document.body.scrollHeight; y += 600) { window.scrollTo(0, y); await new Promise((r) => setTimeout(r, 60)); }
  });
  await page.evaluate(() => document.querySelector(".live-sampling-demo")?.closest(".callout")?.querySelector(".callout-header")?.click());
  await page.locator(".live-sampling-demo button").first().scrollIntoViewIfNeeded();
  await page.waitForTimeout(1500);
  const live = (r) => /live-(model|sampling)\.js|\.safetensors/.test(r.url);   // not live-loader.js: see below
  out.page = {requests_at_load: atLoad.length, bytes_at_load: atLoad.reduce((s, r) => s + r.bytes, 0),
    live_requests_before_write: requests.filter(live).map((r) => r.url),
    // the one module the demo's cells import, preloaded with the other demos' modules once the demos start
    loader_bytes: requests.filter((r) => /live-loader\.js/.test(r.url)).reduce((s, r) => s + r.bytes, 0)};
  const cdp = await context.newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", {rate: 4});
  const timing = await page.evaluate(async () => {
    const long = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) long.push([e.startTime, e.duration]); }).observe({type: "longtask"});
    const text = document.querySelector(".live-sampling-demo .live-text");
    const t0 = performance.now();
    let first = null, last = null;
    const done = new Promise((resolve) => {
      new MutationObserver(() => {
        const now = document.querySelector(".live-sampling-demo .live-text");
        const n = now?.textContent.length ?? 0;
        if (n > 0 && first === null) first = performance.now() - t0;
        if (n >= 300) { last = performance.now() - t0; resolve(); }
      }).observe(document.querySelector(".live-sampling-demo"), {subtree: true, childList: true, characterData: true});
    });
    [...document.querySelectorAll(".live-sampling-demo button")].find((b) => /Write/.test(b.textContent)).click();
    await Promise.race([done, new Promise((r) => setTimeout(r, 60000))]);
    await new Promise((r) => setTimeout(r, 300));
    const during = long.filter(([s]) => s >= t0);
    return {first_char_ms: first, all_300_ms: last, longest_task_ms: Math.max(0, ...during.map(([, d]) => d)),
      long_tasks: during.map(([s, d]) => [Math.round(s - t0), Math.round(d)]), text: !!text};
  });
  const fetched = requests.filter(live).map((r) => r.url);
  out.page.write_at_4x = {...timing, chars_per_s: timing.all_300_ms && timing.first_char_ms !== null
    ? Math.round(299 / ((timing.all_300_ms - timing.first_char_ms) / 1000)) : null, fetched};
} finally {
  await browser.close();
  await server.close();
}

console.log(JSON.stringify(out, null, 2));
if (log) {
  appendFileSync(join(ROOT, "data", "live-model.md"), `\n### ${out.date} (node modules/03-sequence-models/bench/live_model.mjs, ${out.settings} weights, ${out.cpus})\n\n\`\`\`json\n${JSON.stringify(out, null, 2)}\n\`\`\`\n`);
}
