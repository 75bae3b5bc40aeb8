// The OJS runtime loads when a reader may see a demo, not at load (_extensions/course/post-render/passes/ojs-on-demand.mjs
// puts this in place of Quarto's start-up script, with Quarto's settings in its data-* attributes).
// The page's text, equations and figures paint with no OJS script at all; the (minified) runtime is
// imported once an OJS cell's output is within a screen of the viewport (a collapsed callout's stay
// hidden until it opens), a deck's current slide holds one (a printed handout: once reveal.js has laid
// out its pages), printing, or the reader's first scroll, key or touch.  Each demo then draws when it
// nears the screen (seen() in _extensions/course/demo-setup.ojs).
const settings = document.getElementById("ojs-on-demand").dataset;
if (window.location.protocol === "file:") { alert("The OJS runtime does not work with file:// URLs. Please use a web server to view this document."); }
const WAKE = ["scroll", "wheel", "keydown", "pointerdown", "touchstart"];
const PRELOAD = JSON.parse(settings.preload);
let started = false, io = null;
function start() {
  if (started) return;
  started = true;
  io?.disconnect();
  for (const type of WAKE) removeEventListener(type, start, true);
  for (const href of PRELOAD) document.head.append(Object.assign(document.createElement("link"), {rel: "modulepreload", href}));
  // the cells' source, kept beside the page until now, fetched with the runtime
  const sources = [...document.querySelectorAll('script[type="ojs-module-contents"][data-src]')].map((s) =>
    fetch(s.dataset.src).then((r) => {
      if (!r.ok) throw new Error(`the demos' source ${s.dataset.src}: HTTP ${r.status}`);
      return r.text();
    }).then((text) => { s.text = text; s.removeAttribute("data-src"); }));
  Promise.all([import(settings.runtime), ...sources]).then(() => {
    Object.assign(window._ojs.paths, JSON.parse(settings.paths));
    window._ojs.selfContained = settings.selfContained === "true";
    window._ojs.runtime.interpretFromScriptTags();
  });
}
for (const type of WAKE) addEventListener(type, start, {capture: true, passive: true});
// printed (or a handout printed by scripts/pages/handouts.mjs): every demo is drawn on paper
addEventListener("beforeprint", start);
matchMedia("print").addEventListener("change", (e) => { if (e.matches) start(); });
if (document.querySelector(".reveal") && /print-pdf/i.test(location.search)) {
  // the printed deck: reveal.js lays it out by taking every slide out of the page for a frame and
  // putting them back in .pdf-page boxes, then says "pdf-ready"; a cell run in between would find
  // no output element and its demo would never draw
  if (document.querySelector(".reveal .slides > .pdf-page")) start(); else document.addEventListener("pdf-ready", start);
} else if (document.querySelector(".reveal")) {
  const check = () => { if (document.querySelector(".reveal .slides section.present [id^=ojs-cell-]")) start(); };
  for (const type of ["ready", "slidechanged"]) document.addEventListener(type, check);
  check();
} else {
  io = new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting)) start(); }, {rootMargin: "100% 0px"});
  for (const cell of document.querySelectorAll("[id^=ojs-cell-]")) io.observe(cell);
}
