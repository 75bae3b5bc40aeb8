// The post-render passes, in the order they run (pipeline.mjs).  The order matters where one pass
// reads what another changes:
// - search-index first, while the pages still hold the OJS source it takes out of the index, and
//   browser-dependencies while they are as Quarto wrote them;
// - ojs-on-demand before hidden-cell-code and before deferred-head-scripts (it removes the runtime's tag);
// - dom-ready-in-turns after deferred-head-scripts, which would move the scripts around it;
// - the fonts and purge-css last but no-cdn: they read the pages as finished.
import searchIndex from "./search-index.mjs";
import browserDependencies from "./browser-dependencies.mjs";
import ojsOnDemand from "./ojs-on-demand.mjs";
import minifiedOjsRuntime from "./minified-ojs-runtime.mjs";
import hiddenCellCode from "./hidden-cell-code.mjs";
import deferredHeadScripts from "./deferred-head-scripts.mjs";
import domReadyInTurns from "./dom-ready-in-turns.mjs";
import searchOnFirstUse from "./search-on-first-use.mjs";
import tippyOnFirstHover from "./tippy-on-first-hover.mjs";
import iconFontsEarly from "./icon-fonts-early.mjs";
import headingAnchors from "./heading-anchors.mjs";
import calloutButtons from "./callout-buttons.mjs";
import focusableFigures from "./focusable-figures.mjs";
import darkThemeOnDemand from "./dark-theme-on-demand.mjs";
import typesetMath from "./typeset-math.mjs";
import siteStamp from "./site-stamp.mjs";
import mathFont from "./math-font.mjs";
import iconFont from "./icon-font.mjs";
import purgeCss from "./purge-css.mjs";
import noCdn from "./no-cdn.mjs";

export const PASSES = [
  searchIndex, browserDependencies,
  ojsOnDemand, minifiedOjsRuntime, hiddenCellCode,
  deferredHeadScripts, domReadyInTurns,
  searchOnFirstUse, tippyOnFirstHover, iconFontsEarly, headingAnchors,
  calloutButtons, focusableFigures, darkThemeOnDemand,
  typesetMath, siteStamp,
  mathFont, iconFont, purgeCss,
  noCdn,
];
