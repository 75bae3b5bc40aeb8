// The Your run box under events as browser users make them (issue 41 point 4), on the shared render in Chromium:
// the last file chosen wins over an earlier, slower one; a failed load of the box's libraries is tried again
// with the next file and says what to do; a browser that will not keep the file shows the run, says it is not
// remembered, and a reload brings back no older run; two files dropped at once: the status says which one is
// shown; a huge string from the file (a device name) is clipped; "Forget my run" leaves the focus on the file
// input; the status line is a live region from the start.  The file is the real quick run's
// (tests/fixtures/<id>/lab-results-quick.json) with a value changed.  Skipped, with the reason, where quarto or
// Chromium is missing.
import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {dirname, join} from "node:path";
import {module} from "./course.mjs";
import {renderedSite} from "./site-render.mjs";
import {offlinePage} from "./browser.mjs";
import {MODULE_PAGE, skip, openSite} from "./site-browser-checks.mjs";

const M = module("03-sequence-models");
const quick = () => JSON.parse(readFileSync(join(dirname(M.fixture), "lab-results-quick.json"), "utf8"));
const withDevice = (device, pad = 0) => {
  const run = quick();
  run.lab_run.device = device;
  if (pad) run.student = {prediction_3a: "x".repeat(pad)};   // a large file takes longer to read and check
  return JSON.stringify(run);
};
const upload = (name, text) => ({name, mimeType: "application/json", buffer: Buffer.from(text)});
const statusOf = (page) => page.waitForFunction(() => {
  const s = document.querySelector(".your-run-status");
  return s?.textContent && s.dataset.kind !== "busy" ? {kind: s.dataset.kind, text: s.textContent} : null;
}, null, {timeout: 60_000}).then((h) => h.jsonValue());
const reset = (page) => page.evaluate(() => { const s = document.querySelector(".your-run-status"); s.textContent = ""; delete s.dataset.kind; });

test("the Your run box under a browser user's events", {skip}, async (t) => {
  const {dir} = await renderedSite();
  const {site, browser, close} = await openSite(dir);
  t.after(close);
  const url = `${site.origin}/${MODULE_PAGE}`;
  const session = async (fn, init) => {
    const {context, page, problems} = await offlinePage(browser, site.origin, {width: 1280, height: 720});
    try {
      if (init) await context.addInitScript(init);
      await page.goto(url, {waitUntil: "load"});
      await fn(page, context, problems);
    } finally {
      await context.close();
    }
  };

  await t.test("the status line is a live region before its first message", () => session(async (page) => {
    assert.equal(await page.getByRole("status").filter({has: page.locator(".your-run-status")}).count() +
      await page.locator("#your-run [role=status][aria-live=polite].your-run-status").count() >= 1, true);
    assert.equal(await page.locator(".your-run-status").textContent(), "");
  }));

  await t.test("the last file chosen wins over an earlier, slower one", () => session(async (page) => {
    await page.setInputFiles("#your-run-file", upload("slow.json", withDevice("the earlier file", 3_000_000)));
    await page.setInputFiles("#your-run-file", upload("later.json", withDevice("the later file")));
    // the later file's run shows (an earlier file that overwrote it would leave this waiting until it fails)
    await page.waitForFunction(() => /the later file/.test(document.querySelector(".your-run-status")?.textContent), null, {timeout: 60_000})
      .catch(async (err) => { throw new Error(`${err.message}; the status: ${(await page.locator(".your-run-status").textContent()).slice(0, 300)}`); });
    await page.waitForTimeout(3000);                               // the slow one has long been read by now
    assert.match(await page.locator(".your-run-status").textContent(), /the later file/);
    assert.doesNotMatch(await page.locator(".your-run-status").textContent(), /the earlier file/);
  }));

  await t.test("a failed load of the libraries is tried again with the next file", () => session(async (page, context) => {
    let refuse = true;
    await context.route("**/vendor/run-libs.js", (route) => (refuse ? route.abort("failed") : route.continue()));
    await page.setInputFiles("#your-run-file", upload("lab3_results.json", withDevice("first try")));
    const failed = await statusOf(page);
    assert.equal(failed.kind, "error");
    assert.match(failed.text, /choose or drop the file again/);
    refuse = false;
    await reset(page);
    await page.setInputFiles("#your-run-file", upload("lab3_results.json", withDevice("second try")));
    const ok = await statusOf(page);
    assert.equal(ok.kind, "ok", ok.text);
  }));

  await t.test("a browser that will not keep the file: shown, said so, and no older run on a reload", () => session(async (page) => {
    await page.setInputFiles("#your-run-file", upload("lab3_results.json", withDevice("the older run")));
    assert.equal((await statusOf(page)).kind, "ok");
    // the storage now refuses every write (full, or a private window's limit)
    await page.evaluate(() => { Storage.prototype.setItem = () => { throw new DOMException("quota", "QuotaExceededError"); }; });
    await reset(page);
    await page.setInputFiles("#your-run-file", upload("lab3_results.json", withDevice("the unkept run")));
    const status = await statusOf(page);
    assert.equal(status.kind, "ok", status.text);
    assert.match(status.text, /the unkept run/);
    assert.match(status.text, /shown, not remembered on this device/);
    await page.reload({waitUntil: "load"});
    await page.waitForTimeout(2000);
    assert.doesNotMatch(await page.locator(".your-run-status").textContent(), /the older run/);
    assert.equal(await page.locator(".your-run-compare").count(), 0, "no run shown after the reload");
  }));

  await t.test("two files in one drop: the status says which one is shown", () => session(async (page) => {
    await page.evaluate(([a, b]) => {
      const dt = new DataTransfer();
      dt.items.add(new File([a], "first.json", {type: "application/json"}));
      dt.items.add(new File([b], "second.json", {type: "application/json"}));
      document.getElementById("your-run").dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
    }, [withDevice("dropped first"), withDevice("dropped second")]);
    const status = await statusOf(page);
    assert.match(status.text, /^You dropped 2 files; this is the first, first\.json\./, status.text);
    assert.match(status.text, /dropped first/);
  }));

  await t.test("a huge string from the file is clipped; Forget my run leaves the focus on the file input", () => session(async (page) => {
    await page.setInputFiles("#your-run-file", upload("lab3_results.json", withDevice("CPU ".repeat(250_000))));
    const status = await statusOf(page);
    assert.equal(status.kind, "ok", status.text.slice(0, 200));
    assert.ok(status.text.length < 3000, `${status.text.length} characters`);
    const height = await page.locator(".your-run-status").evaluate((e) => e.getBoundingClientRect().height);
    assert.ok(height < 400, `the status line is ${height} px tall`);
    await page.locator(".your-run-forget").click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), "your-run-file");
  }));
});
