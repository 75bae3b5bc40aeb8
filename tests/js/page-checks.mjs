// Assertions shared by the browser tests that drive a page opened with browser.mjs's openOffline.
import assert from "node:assert/strict";

/** Nothing went wrong on the page: no request off the site, none failed, no page or console error. */
export function assertNoProblems(problems) {
  assert.deepEqual(problems.blocked, [], "requests off the site");
  assert.deepEqual(problems.failed, [], "failed requests");
  assert.deepEqual(problems.pageErrors, [], "page errors");
  assert.deepEqual(problems.console, [], "console errors");
}
