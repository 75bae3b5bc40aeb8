// Waiting until a page has stopped loading, by its own requests: for the browser tests and the handouts.
//
// Playwright's waitForLoadState("networkidle") can miss the end of loading for good.  Read in
// playwright-core (coreBundle.js, Frame._startNetworkIdleTimer/_recalculateNetworkIdle): once
// "networkidle" has fired, a request that starts and finishes does not re-arm its 500 ms timer, and a
// later lifecycle event (the "load" of a page whose parsing outlasted a pause in its requests, as a
// large deck's does on a loaded machine) takes "networkidle" back, so that nothing fires it again.  CI
// met it as a 30 s timeout on the deck at 390 px, with nothing said about why.  This waits on the
// requests the page is seen to make, re-armed by each, and when it times out it names the ones open.

/** Start watching `page`'s requests (call before goto).  Returns quiet(): a promise that resolves once
 * no request has been open for `idleMs`, and rejects after `timeout` naming the requests still open. */
export function watchRequests(page) {
  const open = new Map();   // request -> when it started
  let last = Date.now();
  const done = (req) => { open.delete(req); last = Date.now(); };
  page.on("request", (req) => { open.set(req, Date.now()); last = Date.now(); });
  page.on("requestfinished", done);
  page.on("requestfailed", done);
  return {
    open: () => [...open.keys()].map((r) => r.url()),
    quiet: async ({idleMs = 500, timeout = 30_000} = {}) => {
      const t0 = Date.now();
      while (open.size || Date.now() - last < idleMs) {
        if (Date.now() - t0 > timeout) {
          const now = Date.now();
          throw new Error(`the page still loading after ${timeout} ms; open requests: ` +
            ([...open].map(([r, t]) => `${r.url()} (for ${now - t} ms)`).join(", ") || `none, but one finished ${now - last} ms ago`));
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}
