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
  await page.goto(`${origin}/`, {waitUntil: "load"});
  await assert.rejects(requests.quiet({timeout: 3_000}), (err) => {
    assert.match(err.message, /open requests: .*\/hang \(for \d+ ms\)/);
    assert.doesNotMatch(err.message, /\/slow/, "the slow request had ended");
    return true;
  });
  assert.equal(await page.title(), "slow done");
  for (const res of hung.splice(0)) res.end();
  await requests.quiet({timeout: 3_000});
  assert.deepEqual(requests.open(), []);
});
