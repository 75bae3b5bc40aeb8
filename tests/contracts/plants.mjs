// The catalogue of planted Quarto changes: each is a change a Quarto release could make to the files
// of its own resources folder (Lua filters, HTML and EJS templates, its browser scripts and
// stylesheets), planted in a copy of that folder (quarto.mjs); the contract fixture rendered with it
// must stop in the post-render, under the pass named here, on the page named here.  `make contracts`
// runs them all (run.mjs).  At least two per pass, of different kinds; each names the entries of
// _extensions/course/post-render/quarto-dependencies.json it plants a change of (`deps`).
//
// A plant is {id, pass, page, kind, what, deps, render, patch}: `render` the fixture pages a plain
// `quarto render PAGE...` needs (omitted: every page), `patch` a list of changes to files of the
// resources folder: {file, find, replace, all} (find must occur, else the plant is stale and fails),
// {file, remove: true}, {file, rename: "new name"}, or {filter: LUA, at: "before-post-quarto" |
// "finalize"}: a filter added to Quarto's own chain (filters/main.lua), as a release changes what its
// filters write.

/** A filter in Quarto's chain (filters/main.lua): before the post-quarto entry point (so before the
    course's own post-quarto filters), or among the finalize filters (after every filter). */
const filter = (lua, at = "finalize") => ({filter: lua, at});

export const PLANTS = [
  // ---------------------------------------------------------------- search-index
  {id: "search-ojs-class-renamed", pass: "search-index", page: "search.json (index.html)", kind: "rename a class",
    what: "the OJS cells' source blocks are classed cell-source instead of cell-code",
    deps: ["ojs-cell-source"], render: ["index.qmd"],
    patch: [filter(`{ CodeBlock = function(el)
      for i, c in ipairs(el.classes) do if c == "cell-code" then el.classes[i] = "cell-source" end end
      return el end }`)]},
  {id: "search-callout-title-as-text", pass: "search-index", page: "search.json (index.html)", kind: "change part of the matches",
    what: "a callout's title is written as plain text (its formula's TeX no longer in the page, so not in the index)",
    deps: ["search-index-tex"], render: ["index.qmd"],
    patch: [{file: "filters/modules/callouts.lua", find: 'local titleDiv = pandoc.Div(pandoc.Plain(title),',
      replace: 'local titleDiv = pandoc.Div(pandoc.Plain(pandoc.Inlines(pandoc.utils.stringify(title))),'}]},

  // ---------------------------------------------------------------- browser-dependencies
  {id: "callout-body-renamed", pass: "browser-dependencies", page: "index.html", kind: "rename a class",
    what: "a callout's body box is classed callout-content instead of callout-body-container",
    deps: ["callout-markup"], render: ["index.qmd"],
    patch: [{file: "filters/modules/callouts.lua", find: '"callout-body-container"', replace: '"callout-content"', all: true}]},
  {id: "figure-box-class-dropped", pass: "browser-dependencies", page: "index.html", kind: "drop a class",
    what: "a cross-referenced figure's box is no longer classed quarto-figure",
    deps: ["figure-class"], render: ["index.qmd"],
    patch: [{file: "filters/customnodes/floatreftarget.lua", find: '  div.attr.classes:insert("quarto-figure")\n', replace: ""}]},
  {id: "navbar-brand-renamed", pass: "browser-dependencies", page: "plain.html", kind: "rename a class",
    what: "the navbar's title box is classed navbar-brand-box",
    deps: ["navbar"], render: ["plain.qmd"],
    patch: [{file: "projects/website/templates/navbrand.ejs", find: "navbar-brand-container", replace: "navbar-brand-box"}]},
  {id: "main-content-renamed", pass: "browser-dependencies", page: "plain.html", kind: "rename a class",
    what: "a page's <main> is classed page-content",
    deps: ["main-content"], render: ["plain.qmd"],
    patch: [{file: "projects/website/templates/nav-before-body.ejs", find: '<main class="content" id="quarto-document-content">', replace: '<main class="page-content" id="quarto-document-content">'}]},
  {id: "ojs-cell-classes-moved", pass: "browser-dependencies", page: "index.html", kind: "move an attribute",
    what: "an OJS cell's classes: option goes on its output, not on its <div class=\"cell\">",
    deps: ["ojs-cell-classes"], render: ["index.qmd"],
    patch: [filter(`{ Div = function(el)
      if el.classes:includes("cell") and el.classes:includes("demo") then
        local moved = el.classes:filter(function(c) return c ~= "cell" end)
        el.classes = pandoc.List({"cell"})
        for _, b in ipairs(el.content) do
          if b.t == "Div" and b.classes:includes("cell-output") then b.classes:extend(moved) break end
        end
        return el
      end end }`)]},
  {id: "ojs-output-ids-renamed", pass: "browser-dependencies", page: "index.html", kind: "rename an id",
    what: "an OJS cell's outputs are #ojs-output-N-M",
    deps: ["ojs-cell-outputs"], render: ["index.qmd"],
    patch: [filter(`{ Div = function(el)
      if el.identifier:match("^ojs%-cell%-") then el.identifier = el.identifier:gsub("^ojs%-cell%-", "ojs-output-") return el end
      end }`)]},
  {id: "reveal-slidechanged-renamed", pass: "browser-dependencies", page: "site_libs/revealjs/dist/reveal.js", kind: "rename an event",
    what: "reveal.js says \"slidechange\" when the slide changes",
    deps: ["reveal-events"], render: ["slides.qmd"],
    patch: [{file: "formats/revealjs/reveal/dist/reveal.js", find: '"slidechanged"', replace: '"slidechange"', all: true}]},
  {id: "reveal-pdf-ready-dropped", pass: "browser-dependencies", page: "site_libs/revealjs/dist/reveal.js", kind: "drop an event",
    what: "reveal.js no longer says \"pdf-ready\" once a printed deck is laid out",
    deps: ["reveal-events"], render: ["slides.qmd"],
    patch: [{file: "formats/revealjs/reveal/dist/reveal.js", find: '"pdf-ready"', replace: '"print-ready"', all: true}]},

  {id: "callout-collapse-class-dropped", pass: "browser-dependencies", page: "index.html", kind: "drop a class",
    what: "a collapsible callout's body is no longer classed collapse (Bootstrap wired otherwise)",
    deps: ["callout-collapse"], render: ["index.qmd"],
    patch: [{file: "filters/modules/callouts.lua", find: '      collapseDiv.attr.classes:insert("collapse")\n', replace: ""}]},
  {id: "collapse-event-renamed", pass: "browser-dependencies", page: "site_libs/bootstrap/bootstrap.min.js", kind: "rename an event",
    what: "Bootstrap's collapse events are .bs.fold",
    deps: ["collapse-event"], render: ["index.qmd"],
    patch: [{file: "formats/html/bootstrap/dist/bootstrap.min.js", find: '".bs.collapse"', replace: '".bs.fold"'}]},
  // ---------------------------------------------------------------- ojs-on-demand
  {id: "ojs-runtime-tag-renamed", pass: "ojs-on-demand", page: "index.html", kind: "rename a script",
    what: "the page loads its OJS runtime as quarto-ojs-runtime.mjs",
    deps: ["ojs-runtime-script"], render: ["index.qmd"],
    patch: [filter(`{ RawBlock = function(el)
      if el.format == "html" then el.text = el.text:gsub("quarto%-ojs%-runtime%.js", "quarto-ojs-runtime.mjs") end
      return el end }`)]},
  {id: "ojs-contents-one-cell-dropped", pass: "ojs-on-demand", page: "index.html", kind: "change part of the matches",
    what: "the cells' source (ojs-module-contents) holds one cell fewer than the page has",
    deps: ["ojs-module-contents"], render: ["index.qmd"],
    patch: [filter(`{ RawBlock = function(el)
      if el.format ~= "html" then return nil end
      local before, b64, after = el.text:match('^(.-<script type="ojs%-module%-contents">%s*)([A-Za-z0-9+/=]+)(.*)$')
      if not b64 then return nil end
      local data = quarto.json.decode(quarto.base64.decode(b64))
      for i, c in ipairs(data.contents) do
        if c.cellName == "ojs-cell-1" then table.remove(data.contents, i) break end
      end
      el.text = before .. quarto.base64.encode(quarto.json.encode(data)) .. after
      return el end }`)]},
  {id: "ojs-runtime-module-type-dropped", pass: "ojs-on-demand", page: "index.html", kind: "drop an attribute",
    what: "the runtime's <script> loses type=\"module\"",
    deps: ["ojs-runtime-script"], render: ["index.qmd"],
    patch: [filter(`{ RawBlock = function(el)
      if el.format == "html" then el.text = el.text:gsub('<script type="module" src="([^"]*quarto%-ojs%-runtime%.js)"', '<script src="%1"') end
      return el end }`)]},

  // ---------------------------------------------------------------- minified-ojs-runtime
  {id: "ojs-minified-runtime-removed", pass: "minified-ojs-runtime", page: "Quarto's resources", kind: "drop a file",
    what: "Quarto ships no minified build of its OJS runtime",
    deps: ["ojs-runtime-min"], render: ["index.qmd"],
    patch: [{file: "formats/html/ojs/quarto-ojs-runtime.min.js", remove: true}]},
  {id: "ojs-minified-runtime-renamed", pass: "minified-ojs-runtime", page: "Quarto's resources", kind: "rename a file",
    what: "Quarto's minified OJS runtime is named quarto-ojs-runtime.min.mjs",
    deps: ["ojs-runtime-min"], render: ["index.qmd"],
    patch: [{file: "formats/html/ojs/quarto-ojs-runtime.min.js", rename: "quarto-ojs-runtime.min.mjs"}]},

  {id: "ojs-runtime-method-renamed", pass: "minified-ojs-runtime", page: "formats/html/ojs/quarto-ojs-runtime.min.js", kind: "rename a method",
    what: "the OJS runtime's interpretFromScriptTags() is named interpretScriptTags()",
    deps: ["ojs-runtime-api"], render: ["index.qmd"],
    patch: [{file: "formats/html/ojs/quarto-ojs-runtime.min.js", find: "interpretFromScriptTags", replace: "interpretScriptTags", all: true}]},

  // ---------------------------------------------------------------- hidden-cell-code
  {id: "hidden-code-class-renamed", pass: "hidden-cell-code", page: "index.html", kind: "rename a class",
    what: "a hidden cell's source is classed d-none instead of hidden",
    deps: ["ojs-hidden-source"], render: ["index.qmd"],
    patch: [filter(`{ CodeBlock = function(el)
      if el.classes:includes("cell-code") then
        for i, c in ipairs(el.classes) do if c == "hidden" then el.classes[i] = "d-none" end end
      end
      return el end }`)]},
  {id: "hidden-code-one-shown", pass: "hidden-cell-code", page: "index.html", kind: "change part of the matches",
    what: "the first echo: false cell's source is shown (no longer hidden)",
    deps: ["ojs-hidden-source"], render: ["index.qmd"],
    patch: [filter(`(function() local done = false return { CodeBlock = function(el)
      if not done and el.classes:includes("cell-code") and el.classes:includes("hidden") then
        done = true
        el.classes = el.classes:filter(function(c) return c ~= "hidden" end)
        return el
      end end } end)()`)]},

  // ---------------------------------------------------------------- deferred-head-scripts
  {id: "head-script-added", pass: "deferred-head-scripts", page: "plain.html", kind: "add an element",
    what: "the head loads a library the course does not know (quarto-new.js)",
    deps: ["head-scripts"], render: ["plain.qmd"],
    patch: [{file: "formats/html/pandoc/template.html", find: "<!-- htmldependencies:E3FAD763 -->",
      replace: '<!-- htmldependencies:E3FAD763 -->\n<script src="site_libs/quarto-html/quarto-new.js"></script>'}]},
  {id: "head-library-used-at-once", pass: "deferred-head-scripts", page: "plain.html", kind: "use a library before load",
    what: "an inline script in the head uses Bootstrap as it is read (deferring Bootstrap would break it)",
    deps: ["head-scripts", "bootstrap-global"], render: ["plain.qmd"],
    patch: [{file: "formats/html/pandoc/template.html", find: "$for(css)$",
      replace: "<script>window.bootstrap.Tooltip.Default.delay = 100;</script>\n$for(css)$"}]},

  // ---------------------------------------------------------------- dom-ready-in-turns
  {id: "quarto-js-on-load", pass: "dom-ready-in-turns", page: "site_libs/quarto-html/quarto.js", kind: "change an event",
    what: "quarto.js sets the page up at load instead of DOMContentLoaded",
    deps: ["dom-ready-listeners"], render: ["plain.qmd"],
    patch: [{file: "formats/html/quarto.js", find: 'window.document.addEventListener("DOMContentLoaded", function (_event) {',
      replace: 'window.addEventListener("load", function (_event) {'}]},
  {id: "quarto-nav-listener-dropped", pass: "dom-ready-in-turns", page: "site_libs/quarto-nav/quarto-nav.js", kind: "drop a listener",
    what: "quarto-nav.js runs its set-up at once instead of from a DOMContentLoaded listener",
    deps: ["dom-ready-listeners"], render: ["plain.qmd"],
    patch: [{file: "projects/website/navigation/quarto-nav.js", find: 'window.document.addEventListener("DOMContentLoaded", function () {',
      replace: "(function () {"},
    {file: "projects/website/navigation/quarto-nav.js", find: "\n});", replace: "\n})();", last: true}]},

  // ---------------------------------------------------------------- search-on-first-use
  {id: "search-box-id-renamed", pass: "search-on-first-use", page: "plain.html", kind: "rename an id",
    what: "the navbar's search box is <div id=\"quarto-search-box\">",
    deps: ["search-box"], render: ["plain.qmd"],
    patch: [{file: "projects/website/templates/navsearch.ejs", find: 'id="quarto-search"', replace: 'id="quarto-search-box"'}]},
  {id: "search-box-not-empty", pass: "search-on-first-use", page: "plain.html", kind: "add an element",
    what: "the search box holds a placeholder (it is no longer empty)",
    deps: ["search-box"], render: ["plain.qmd"],
    patch: [{file: "projects/website/templates/navsearch.ejs", find: "></div>", replace: "><span class=\"search-placeholder\"></span></div>"}]},
  {id: "search-icon-class-renamed", pass: "search-on-first-use", page: "site_libs/quarto-search/autocomplete.umd.js", kind: "rename a class in a script",
    what: "autocomplete-js draws its search icon as aa-SearchIcon",
    deps: ["search-icon-path"], render: ["plain.qmd"],
    patch: [{file: "projects/website/search/autocomplete.umd.js", find: '"aa-SubmitIcon"', replace: '"aa-SearchIcon"', all: true}]},

  {id: "search-open-renamed", pass: "search-on-first-use", page: "site_libs/quarto-search/quarto-search.js", kind: "rename a browser global",
    what: "quarto-search.js opens the search with window.quartoSearchOpen()",
    deps: ["search-open"], render: ["plain.qmd"],
    patch: [{file: "projects/website/search/quarto-search.js", find: "window.quartoOpenSearch", replace: "window.quartoSearchOpen", all: true}]},
  {id: "search-options-id-renamed", pass: "search-on-first-use", page: "plain.html", kind: "rename an id",
    what: "the search's settings are <script id=\"quarto-search-settings\">",
    deps: ["search-options"], render: ["plain.qmd"],
    patch: [filter(`{ RawBlock = function(el)
      if el.format == "html" and el.text:find("quarto-search-options", 1, true) then
        el.text = el.text:gsub("quarto%-search%-options", "quarto-search-settings") return el
      end end }`)]},

  // ---------------------------------------------------------------- tippy-on-first-hover
  {id: "tippy-global-renamed", pass: "tippy-on-first-hover", page: "site_libs/quarto-html/tippy.umd.min.js", kind: "rename a browser global",
    what: "tippy's script defines window.Tippy, not window.tippy",
    deps: ["tippy-global"], render: ["plain.qmd"],
    patch: [{file: "formats/html/tippy/tippy.umd.min.js", find: ").tippy=t(", replace: ").Tippy=t("}]},
  {id: "tippy-called-otherwise", pass: "tippy-on-first-hover", page: "plain.html", kind: "change a call",
    what: "Quarto's after-body script makes its previews with tippy.delegate, not window.tippy(el, config)",
    deps: ["tippy-call"], render: ["plain.qmd"],
    patch: [{file: "formats/html/templates/quarto-html-after-body.ejs", find: "window.tippy(el, config);", replace: "window.tippy.delegate(el, config);"}]},

  // ---------------------------------------------------------------- icon-fonts-early
  {id: "anchor-rules-added-otherwise", pass: "icon-fonts-early", page: "site_libs/quarto-html/anchor.min.js", kind: "change a call",
    what: "AnchorJS adds its rules with a stylesheet's textContent instead of insertRule",
    deps: ["anchorjs-rules"], render: ["plain.qmd"],
    patch: [{file: "formats/html/anchor/anchor.min.js", find: ".sheet.insertRule(", replace: ".sheet.addRule(", all: true}]},
  {id: "anchor-font-face-dropped", pass: "icon-fonts-early", page: "site_libs/quarto-html/anchor.min.js", kind: "drop a rule",
    what: "AnchorJS no longer inserts its @font-face",
    deps: ["anchorjs-rules"], render: ["plain.qmd"],
    patch: [{file: "formats/html/anchor/anchor.min.js", find: "A.sheet.insertRule('@font-face", replace: "void('@font-face"}]},

  // ---------------------------------------------------------------- heading-anchors
  {id: "anchorjs-placed-left", pass: "heading-anchors", page: "plain.html", kind: "change a setting",
    what: "Quarto sets AnchorJS's links on the left",
    deps: ["anchorjs-call"], render: ["plain.qmd"],
    patch: [{file: "formats/html/templates/quarto-html-after-body.ejs", find: "placement: 'right',", replace: "placement: 'left',"}]},
  {id: "anchored-class-renamed", pass: "heading-anchors", page: "plain.html", kind: "rename a class",
    what: "Quarto's AnchorJS call adds links to .quarto-anchored",
    deps: ["anchorjs-call", "anchored"], render: ["plain.qmd"],
    patch: [{file: "formats/html/templates/quarto-html-after-body.ejs", find: "anchorJS.add('.anchored');", replace: "anchorJS.add('.quarto-anchored');"}]},
  {id: "subsections-not-anchored", pass: "heading-anchors", page: "index.html", kind: "change part of the matches",
    what: "a subsection (###) is written without its id, so Quarto anchors only the other headings",
    deps: ["anchored"], render: ["index.qmd"],
    patch: [filter(`{ Header = function(el)
      if el.level == 3 then el.identifier = "" return el end
      end }`, "before-post-quarto")]},

  // ---------------------------------------------------------------- callout-buttons
  {id: "callout-toggle-label-renamed", pass: "callout-buttons", page: "index.html", kind: "change an attribute's value",
    what: "a collapsible callout's header is labelled \"Expand callout\"",
    deps: ["callout-toggle"], render: ["index.qmd"],
    patch: [{file: "filters/modules/callouts.lua", find: `headerDiv.attr.attributes["aria-label"] = 'Toggle callout'`,
      replace: `headerDiv.attr.attributes["aria-label"] = 'Expand callout'`}]},
  {id: "callout-toggle-attribute-dropped", pass: "callout-buttons", page: "index.html", kind: "drop an attribute",
    what: "a collapsible callout's header loses data-bs-toggle (Bootstrap wired otherwise)",
    deps: ["callout-toggle"], render: ["index.qmd"],
    patch: [{file: "filters/modules/callouts.lua", find: `headerDiv.attr.attributes["bs-toggle"] = "collapse"`, replace: ""}]},
  {id: "callout-open-not-collapsible", pass: "browser-dependencies", page: "index.html", kind: "change part of the matches",
    what: "a callout with collapse=\"false\" is not made collapsible (only collapse=\"true\" is): no collapse body, no toggle",
    deps: ["callout-collapse", "callout-toggle"], render: ["index.qmd"],
    patch: [{file: "filters/modules/callouts.lua", find: "    if collapse ~= nil then ", replace: "    if collapse == \"true\" or collapse == true then "}]},

  // ---------------------------------------------------------------- focusable-figures
  {id: "figure-describedby-renamed", pass: "focusable-figures", page: "index.html", kind: "rename an attribute",
    what: "a figure's image box says data-describedby instead of aria-describedby",
    deps: ["figure-image-box"], render: ["index.qmd"],
    patch: [{file: "filters/customnodes/floatreftarget.lua", find: `float_content.attributes["aria-describedby"] = caption_id`,
      replace: `float_content.attributes["data-describedby"] = caption_id`}]},
  {id: "figure-class-renamed", pass: "focusable-figures", page: "index.html", kind: "rename a class",
    what: "a figure is <figure class=\"quarto-figure-fig\">",
    deps: ["figure-image-box"], render: ["index.qmd"],
    patch: [{file: "filters/customnodes/floatreftarget.lua", find: `    figure_class = "quarto-float-" .. ref\n`, replace: `    figure_class = "quarto-figure-" .. ref\n`}]},

  // ---------------------------------------------------------------- dark-theme-on-demand
  {id: "dark-toggle-disables-instead", pass: "dark-theme-on-demand", page: "plain.html", kind: "change a mechanism",
    what: "Quarto's colour-scheme toggle enables the dark theme by .disabled, no longer by rel=\"stylesheet\"",
    deps: ["color-scheme-toggle"], render: ["plain.qmd"],
    patch: [{file: "formats/html/templates/quarto-html-before-body.ejs", find: "stylesheet.rel = 'stylesheet';", replace: "stylesheet.disabled = false;"}]},
  {id: "dark-alternate-class-renamed", pass: "dark-theme-on-demand", page: "plain.html", kind: "rename a class in a script",
    what: "Quarto's toggle finds the dark stylesheets as link.quarto-color-scheme.quarto-color-dark",
    deps: ["color-scheme-toggle"], render: ["plain.qmd"],
    patch: [{file: "formats/html/templates/quarto-html-before-body.ejs", find: "link.quarto-color-scheme.quarto-color-alternate", replace: "link.quarto-color-scheme.quarto-color-dark", all: true}]},

  // ---------------------------------------------------------------- typeset-math
  {id: "math-written-by-quarto", pass: "typeset-math", page: "index.html", kind: "change part of the matches",
    what: "Quarto writes inline formulas with a square root as its own <span class=\"math inline\"> before the course's filter sees them",
    deps: ["pandoc-math"], render: ["index.qmd"],
    patch: [filter(`{ Math = function(m)
      if m.mathtype == "InlineMath" and m.text:find("sqrt", 1, true) then
        return pandoc.RawInline("html", '<span class="math inline">\\\\(' .. m.text .. '\\\\)</span>')
      end end }`, "before-post-quarto")]},
  {id: "deck-math-written-by-quarto", pass: "typeset-math", page: "slides.html", kind: "change part of the matches (the deck)",
    what: "Quarto writes the deck's unnumbered display formulas itself",
    deps: ["pandoc-math"], render: ["slides.qmd"],
    patch: [filter(`{ Math = function(m)
      if m.mathtype == "DisplayMath" and quarto.doc.is_format("revealjs") then
        return pandoc.RawInline("html", '<span class="math display">\\\\[' .. m.text .. '\\\\]</span>')
      end end }`, "before-post-quarto")]},

  // ---------------------------------------------------------------- site-stamp
  {id: "footer-spans-unwrapped", pass: "site-stamp", page: "plain.html", kind: "drop an element's wrapper",
    what: "Quarto renders the navigation's markdown (the footer's) without its spans",
    deps: ["footer-spans"], render: ["plain.qmd"],
    patch: [filter(`{ Div = function(el)
      if el.identifier ~= "quarto-navigation-envelope" then return nil end
      return el:walk({ Span = function(sp)
        if not sp.classes:includes("quarto-markdown-envelope-contents") then return sp.content end
      end })
      end }`)]},
  {id: "footer-dropped", pass: "site-stamp", page: "plain.html", kind: "drop an element",
    what: "Quarto writes no page-footer",
    deps: ["footer-spans"], render: ["plain.qmd"],
    patch: [{file: "projects/website/templates/nav-after-body-postamble.ejs",
      find: "<% if (nav.footer && (nav.footer.left || nav.footer.center || nav.footer.right)) { %>", replace: "<% if (false) { %>"}]},

  // ---------------------------------------------------------------- math-font
  {id: "template-writes-mathml", pass: "math-font", page: "the site's pages", kind: "add an element",
    what: "Quarto's page template writes MathML of its own (a <math> no formula of the author's)",
    deps: [], render: ["index.qmd"],
    patch: [{file: "formats/html/pandoc/template.html", find: "$body$", replace: "$body$\n<math><mi>q</mi></math>"}]},
  {id: "deck-template-writes-mathml", pass: "math-font", page: "the site's pages", kind: "add an element (the deck)",
    what: "Quarto's deck template writes MathML of its own",
    deps: [], render: ["slides.qmd"],
    patch: [{file: "formats/revealjs/pandoc/template.html", find: "</body>", replace: "<math><mi>q</mi></math>\n</body>"}]},

  // ---------------------------------------------------------------- icon-font
  {id: "icon-classes-renamed", pass: "icon-font", page: "site_libs/bootstrap/bootstrap-icons.css", kind: "rename a class",
    what: "Bootstrap Icons' classes are icon-NAME instead of bi-NAME",
    deps: ["bootstrap-icons-css", "bootstrap-icons-font"], render: ["plain.qmd"],
    patch: [{file: "formats/html/bootstrap/dist/bootstrap-icons.css", find: ".bi-", replace: ".icon-", all: true}]},
  {id: "icon-rules-reworded", pass: "icon-font", page: "site_libs/bootstrap/bootstrap-icons.css", kind: "change a format",
    what: "Bootstrap Icons' rules give each glyph in single quotes",
    deps: ["bootstrap-icons-css"], render: ["plain.qmd"],
    patch: [{file: "formats/html/bootstrap/dist/bootstrap-icons.css", find: /::before \{ content: "\\([0-9a-f]+)"; \}/g.source,
      regex: true, replace: "::before { content: '\\$1'; }"}]},

  // ---------------------------------------------------------------- purge-css
  {id: "headroom-class-renamed-in-script", pass: "purge-css", page: "site_libs/bootstrap", kind: "rename a class in a script",
    what: "Headroom, Quarto's navbar script, hides the navbar with headroom--hidden (its stylesheet still says headroom--unpinned)",
    deps: ["script-added-classes"], render: ["plain.qmd"],
    patch: [{file: "projects/website/navigation/headroom.min.js", find: "headroom--unpinned", replace: "headroom--hidden", all: true}]},
  {id: "headroom-rule-renamed", pass: "purge-css", page: "site_libs/bootstrap", kind: "rename a class in a stylesheet",
    what: "Quarto's navbar stylesheet styles header.headroom--hidden",
    deps: ["script-added-classes"], render: ["plain.qmd"],
    patch: [{file: "projects/website/navigation/quarto-nav.scss", find: "header.headroom--unpinned", replace: "header.headroom--hidden"}]},

  // ---------------------------------------------------------------- no-cdn
  {id: "page-template-cdn-script", pass: "no-cdn", page: "plain.html", kind: "add an element",
    what: "Quarto's page template loads a script from jsDelivr",
    deps: [], render: ["plain.qmd"],
    patch: [{file: "formats/html/pandoc/template.html", find: "</body>", replace: '<script src="https://cdn.jsdelivr.net/npm/example@1/x.js"></script>\n</body>'}]},
  {id: "deck-template-cdn-link", pass: "no-cdn", page: "slides.html", kind: "add an attribute",
    what: "Quarto's deck template preconnects to cdnjs",
    deps: [], render: ["slides.qmd"],
    patch: [{file: "formats/revealjs/pandoc/template.html", find: "</head>", replace: '<link rel="preconnect" href="https://cdnjs.cloudflare.com/">\n</head>'}]},
];
