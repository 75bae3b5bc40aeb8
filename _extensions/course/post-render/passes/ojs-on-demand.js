// The OJS runtime loads when a reader may see a demo, not at load (ojs-on-demand.mjs puts this in place
// of Quarto's start-up script, with Quarto's settings as data-*): the page paints with no OJS script; the
// (minified) runtime is imported once an OJS cell nears the screen (whenNear, the rule of each demo's
// seen() too: _extensions/course/near-screen.js) or at the reader's first scroll, key or touch.
const settings = document.getElementById("ojs-on-demand").dataset;
if (window.location.protocol === "file:") { alert("The OJS runtime does not work with file:// URLs. Please use a web server to view this document."); }
const WAKE = ["scroll", "wheel", "keydown", "pointerdown", "touchstart"];
const PRELOAD = JSON.parse(settings.preload);
let started = false, stopWaiting = null;
function start() {
  if (started) return;
  started = true;
  stopWaiting?.();
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
import(settings.near).then(({whenNear}) => {
  if (!started) stopWaiting = whenNear(document.querySelectorAll("[id^=ojs-cell-]"), start);
});
