// site.css lays out the text's blocks only near the screen (content-visibility: auto).  A jump into
// the page would land on the places those blocks keep and then drift as the blocks above the target
// grew, so before any jump the page lays out every block (the class all-blocks-laid-out, which
// site.css reads): at load when the address names a place (#id), asks the search to mark a term
// (?q=) or is a reload or a return; on any click on a link to a place in this page; and as the
// reader leaves or hides the page, so that the place the browser keeps for a reload or a return is
// the laid-out one.  The browser may keep the place it saved before those blocks grew, so the page
// also notes, as it is left, the drawn element with an id nearest above the top third of the screen
// and where it stood; after a reload it puts that element back there, unless the reader has scrolled.
// (First in the head: scripts/postrender/passes/blocks-laid-out-before-a-jump.mjs.)
{
  const layOutAll = () => document.documentElement.classList.add("all-blocks-laid-out");
  const arrival = performance.getEntriesByType("navigation")[0];
  if (location.hash.length > 1 || /[?&]q=/.test(location.search) || (arrival && arrival.type !== "navigate")) layOutAll();
  addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest("a[href*='#']");
    if (link && link.hash.length > 1 && link.origin === location.origin && link.pathname === location.pathname) layOutAll();
  }, true);
  addEventListener("hashchange", layOutAll);
  addEventListener("beforeprint", layOutAll);
  // leaving (or hidden, which on a phone may be the last chance): the browser keeps the scrolled
  // place for a reload or a return, and keeps it right only if the blocks above are laid out now;
  // the place is noted too (an element with an id and its distance from the top of the screen),
  // before that, as the reader sees it: measured once the blocks are laid out, before a frame has
  // let scroll anchoring hold the text still, it named a place 2,500 px off (the rendered-site
  // suite's reload check, one run in five).  Only drawn elements are measured: measuring one inside
  // a block not yet laid out would lay that block out there and then, with the same effect.  And
  // none inside a cell (a demo's): the OJS runtime fills and moves those after load, so that one
  // put back at load stood 433 px from where the reader had it once the demo was drawn.
  const KEY = "place-on-leaving:" + location.pathname;
  const drawn = (el) => el.checkVisibility ? el.checkVisibility({contentVisibilityAuto: true}) : el.getClientRects().length > 0;
  // (once: leaving sends pagehide and then visibilitychange, and by the second the blocks are
  // laid out, with no frame in between)
  let noted = false;
  const beforeLeaving = () => {
    if (noted) return;
    noted = true;
    const line = innerHeight / 3;
    let best = null, bestTop = -Infinity;
    for (const el of document.querySelectorAll("main [id]")) {
      if (el.closest(".cell") || !drawn(el)) continue;
      const top = el.getBoundingClientRect().top;
      if (top <= line && top > bestTop) [best, bestTop] = [el, top];
    }
    try { sessionStorage.setItem(KEY, JSON.stringify(best && scrollY > 0 ? [best.id, bestTop] : null)); } catch {}
    layOutAll();
  };
  addEventListener("pagehide", beforeLeaving);
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") beforeLeaving(); else noted = false; });
  addEventListener("pageshow", () => { noted = false; });
  // back after a reload: the noted element where it stood, once the browser has put the page back
  let place = null;
  try { place = arrival && arrival.type === "reload" && JSON.parse(sessionStorage.getItem(KEY) || "null"); } catch {}
  if (place) {
    let moved = false;
    const readerMoved = () => { moved = true; };
    for (const type of ["wheel", "touchstart", "keydown", "mousedown"]) addEventListener(type, readerMoved, {once: true, passive: true, capture: true});
    addEventListener("load", () => requestAnimationFrame(() => {
      const el = document.getElementById(place[0]);
      if (el && !moved) scrollBy(0, el.getBoundingClientRect().top - place[1]);
    }));
  }
}
