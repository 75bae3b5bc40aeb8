// "Near the screen": the one trigger for what waits until a reader may see it, used by the page script
// that loads the OJS runtime (post-render/passes/ojs-on-demand.js) and each demo's seen() (demo-setup.ojs).

/** Call `then` once a reader may see one of `elements`: on a page, when one comes within a screen of the
    viewport; in a reveal.js deck, when its slide or a neighbour is the current slide; on paper at once (a
    deck printed with ?print-pdf once reveal.js has laid out its pages: a cell run while it moves the
    slides finds no output element).  Returns a function that stops waiting. */
export function whenNear(elements, then) {
  const stops = [];
  let waiting = true;
  const stop = () => { waiting = false; for (const s of stops.splice(0)) s(); };
  const fire = () => { if (waiting) { stop(); then(); } };
  const listen = (target, type, f) => { target.addEventListener(type, f); stops.push(() => target.removeEventListener(type, f)); };
  const printing = matchMedia("print");
  if (printing.matches) { fire(); return stop; }
  listen(printing, "change", (e) => { if (e.matches) fire(); });
  listen(window, "beforeprint", fire);
  if (!document.querySelector(".reveal")) {
    const io = new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting)) fire(); }, {rootMargin: "100% 0px"});
    for (const el of elements) io.observe(el);
    stops.push(() => io.disconnect());
  } else if (/print-pdf/i.test(location.search)) {
    if (document.querySelector(".reveal .slides > .pdf-page")) fire(); else listen(document, "pdf-ready", fire);
  } else {
    const slides = [...elements].map((el) => el.closest(".reveal .slides section")).filter(Boolean);
    const check = () => {
      const deck = window.Reveal, all = deck?.isReady() ? deck.getSlides() : [], now = all.indexOf(deck?.getCurrentSlide());
      if (slides.some((s) => all.includes(s) && Math.abs(all.indexOf(s) - now) <= 1)) fire();
    };
    for (const type of ["ready", "slidechanged"]) listen(document, type, check);
    check();
  }
  return stop;
}
