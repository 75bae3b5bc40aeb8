// Quarto's pages make a tippy.js hover preview for every footnote, cross-reference and citation link
// at DOMContentLoaded, a large part of the longest task at load on a long page.  Placed right after
// tippy's script (_extensions/course/post-render/passes/tippy-on-first-hover.mjs), this makes window.tippy note each
// link and its settings, and build its preview when a reader first points at the link (mouseover,
// which a tap also fires, comes before the mouseenter that tippy listens for) or focuses it (focus
// comes before focusin: it is sent again, now to tippy).  Quarto's calls ignore what tippy returns.
const tippy = window.tippy, pending = new WeakMap();
if (tippy) {
  const lazy = (targets, props = {}) => {
    const els = typeof targets === "string" ? document.querySelectorAll(targets) : targets instanceof Element ? [targets] : targets;
    for (const el of els) pending.set(el, props);
    return [];
  };
  window.tippy = Object.assign(lazy, tippy);
  const wake = (event) => {
    for (let el = event.target; el instanceof Element; el = el.parentElement) {
      if (!pending.has(el)) continue;
      tippy(el, pending.get(el));
      pending.delete(el);
      if (event.type === "focusin") el.dispatchEvent(new FocusEvent("focus"));
      return;
    }
  };
  addEventListener("mouseover", wake, {capture: true, passive: true});
  addEventListener("focusin", wake, {capture: true, passive: true});
}
