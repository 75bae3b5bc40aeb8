// reveal-mathjax.js: the slide deck's math, typeset by the site's own MathJax 3 (vendor/mathjax/).
//
// Quarto's revealjs template always wires reveal.js's MathJax 2 plugin: it loads the URL given as
// `html-math-method: url` (this file, in slides.qmd), then calls MathJax.Hub.Config() and
// MathJax.Hub.Queue(['Typeset', MathJax.Hub, element], fn).  The site self-hosts MathJax 3, not 2,
// and a CDN is no option offline, so this file answers those calls with MathJax 3: it loads
// vendor/mathjax/tex-chtml-full.js (the copy the pages use) and runs the queued tasks in order once
// MathJax 3 is ready.  Same typesetter, same fonts, no request off the site.
(function () {
  const libraryUrl = new URL("../../vendor/mathjax/tex-chtml-full.js", document.currentScript.src).href;

  let markReady;
  let queue = new Promise((resolve) => { markReady = resolve; });

  // the MathJax 2 calls reveal.js makes: Config (ignored) and Queue (Typeset tasks and functions)
  const Hub = {
    Config() {},
    Queue(...tasks) {
      for (const task of tasks) {
        queue = queue.then(() => {
          if (typeof task === "function") return task();
          if (Array.isArray(task) && task[0] === "Typeset") return window.MathJax.typesetPromise(task[2] ? [task[2]] : undefined);
          return undefined;
        }).catch((err) => console.error("reveal-mathjax:", err));
      }
    },
  };

  // MathJax 3 reads this object as its configuration when it loads, then replaces window.MathJax;
  // Hub is on both, because reveal.js calls it as soon as this file has loaded
  window.MathJax = {
    Hub,
    tex: {inlineMath: [["\\(", "\\)"]], displayMath: [["\\[", "\\]"]]},
    startup: {
      typeset: false, // reveal.js asks for the typesetting (its first Queue call)
      ready() {
        window.MathJax.startup.defaultReady();
        window.MathJax.Hub = Hub;
        window.MathJax.startup.promise.then(() => markReady());
      },
    },
  };

  const script = document.createElement("script");
  script.src = libraryUrl;
  script.async = true;
  document.head.appendChild(script);
})();
