// Quarto's search is three scripts in every page's head (autocomplete, fuse and quarto-search),
// set up at load although a reader opens it on few visits.  The page instead carries the search
// button as those scripts would draw it (_extensions/course/post-render/passes/search-on-first-use.mjs), and this
// loads them when a reader first reaches for it: the button pointed at, touched or focused (so they
// load while the finger comes down), clicked, or a search shortcut key; then the search opens as
// Quarto's would.  A page reached from a search result (?q=term, which quarto-search.js marks on the
// page) loads the search at once, after Quarto's navbar script has made the page's links (the term is
// taken out of the address until then, so that no link carries it, as quarto-search.js itself does).
{
  const settings = document.getElementById("search-on-first-use").dataset;
  const sources = JSON.parse(settings.sources), keys = JSON.parse(settings.keys);
  let loading = null;
  const load = () => loading ??= new Promise((resolve, reject) => {
    // quarto-search.js sets itself up at DOMContentLoaded (past by now), and a page reached from a
    // search result at "pageshow" (past too): those listeners are kept aside and called once it has run
    const ready = [], shown = [];
    const onDocument = document.addEventListener, onWindow = window.addEventListener;
    document.addEventListener = function (type, listener, options) {
      return type === "DOMContentLoaded" ? void ready.push(listener) : onDocument.call(this, type, listener, options);
    };
    const next = (i) => {
      if (i < sources.length) {
        const script = Object.assign(document.createElement("script"), {src: sources[i]});
        script.onload = () => next(i + 1);
        script.onerror = () => { document.addEventListener = onDocument; loading = null; reject(new Error(`the search's ${sources[i]} did not load`)); };
        return void document.head.append(script);
      }
      document.addEventListener = onDocument;
      const standin = document.querySelector("#quarto-search .search-standin");
      const focused = standin?.contains(document.activeElement);
      standin?.remove();
      window.addEventListener = function (type, listener, options) {
        return type === "pageshow" ? void shown.push(listener) : onWindow.call(this, type, listener, options);
      };
      try { for (const listener of ready) listener.call(document, new Event("DOMContentLoaded")); }
      finally { window.addEventListener = onWindow; }
      for (const listener of shown) listener.call(window, new PageTransitionEvent("pageshow", {persisted: false}));
      // a keyboard reader on the stand-in button is now on the search's own, in its place
      if (focused) document.querySelector("#quarto-search .aa-DetachedSearchButton")?.focus();
      removeEventListener("keyup", onKey);
      resolve();
    };
    next(0);
  });
  const open = () => load().then(() => window.quartoOpenSearch?.());
  // the shortcut keys, as quarto-search.js takes them (not while a form field or button has the focus)
  const onKey = (event) => {
    const focused = document.activeElement;
    if (!keys.includes(event.key) || focused?.isContentEditable || /^(input|select|textarea|button|option)$/i.test(focused?.tagName)) return;
    event.preventDefault();
    open();
  };
  addEventListener("keyup", onKey);
  const standin = (event) => event.target instanceof Element && event.target.closest("#quarto-search .search-standin");
  for (const type of ["pointerover", "touchstart", "focusin"])
    addEventListener(type, (event) => { if (standin(event)) load(); }, {passive: true});
  addEventListener("click", (event) => { if (standin(event)) open(); });
  const address = new URL(location.href);
  if (address.searchParams.has("q") || address.searchParams.has("show-results")) {
    const arrived = address.href;
    address.searchParams.delete("q");
    history.replaceState(history.state, "", address);
    // after the load event, and after Quarto's DOMContentLoaded set-up (dom-ready-in-turns: earlier timers)
    addEventListener("load", () => setTimeout(() => { history.replaceState(history.state, "", arrived); load(); }));
  }
}
