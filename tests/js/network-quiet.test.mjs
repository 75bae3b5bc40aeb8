// scripts/network_quiet.mjs, the browser tests' and the handouts' "loading done": it waits for a
// request the page makes after its load event, and when a request never ends it says which.
import {test} from "node:test";
import assert from "node:assert/strict";
import {createServer} from "node:http";
import {watchRequests} from "../../scripts/network_quiet.mjs";
import {hasChromium, CHROMIUM, CHROMIUM_ARGS} from "./browser.mjs";

const PAGE = `<!doctype html><title>t</title><script>
  // after load: one late request that takes 800 ms, and one that never ends
  addEventListener("load", () => setTimeout(() => {
    fetch("/slow").then((r) => r.text()).then((t) => { document.title = t; });
    fetch("/hang");
  }, 300));
</script>`;

test("quiet() waits for a late request and names one that never ends", {skip: !hasChromium() && `no Chromium at ${CHROMIUM}`}, async (t) => {
  const hung = [];
  const server = createServer((req, res) => {
    if (req.url === "/slow") return setTimeout(() => res.end("slow done"), 800);
    if (req.url === "/hang") return hung.push(res);
    res.writeHead(200, {"content-type": "text/html"}).end(PAGE);
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const {chromium} = await import("playwright-core");
  const browser = await chromium.launch({executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true});
  t.after(async () => {
    for (const res of hung) res.end();
    await browser.close();
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
  });
  const page = await browser.newPage();
  const requests = watchRequests(page);
  // The late requests start 300 ms after load; on a loaded machine that can be longer than quiet()'s
  // idle window, so the test waits until both have been seen (watchRequests' listener comes first, so
  // they are open in it by then) and until /slow has ended, and asserts on what quiet() does with them.
  const seen = Promise.all([page.waitForRequest(/\/slow$/), page.waitForRequest(/\/hang$/)]);
  const slowEnded = page.waitForEvent("requestfinished", (r) => r.url().endsWith("/slow"));
  await page.goto(`${origin}/`, {waitUntil: "load"});
  await seen;
  let resolvedEarly = false;
  const whileOpen = requests.quiet({timeout: 60_000}).then(() => { resolvedEarly = true; }, () => {});
  await slowEnded;
  assert.equal(resolvedEarly, false, "quiet() resolved while /hang was still open");
  await assert.rejects(requests.quiet({timeout: 1_000}), (err) => {
    assert.match(err.message, /open requests: .*\/hang \(for \d+ ms\)/);
    assert.doesNotMatch(err.message, /\/slow/, "the slow request had ended");
    return true;
  });
  await page.waitForFunction(() => document.title === "slow done");
  for (const res of hung.splice(0)) res.end();
  await requests.quiet({timeout: 30_000});
  await whileOpen;
  assert.equal(resolvedEarly, true, "quiet() resolved once the last request ended");
  assert.deepEqual(requests.open(), []);
});
