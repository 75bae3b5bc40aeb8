// At DOMContentLoaded, Quarto's scripts each set up their part of the page (the navbar's offsets and
// links, the headings' anchors, the cross-references, the table of contents) in ONE task, the
// longest after the text paints.  This runs each of those listeners in a task of its own, in the
// same order, so that none blocks a reader's tap for long.  It goes first in the head, before any
// script adds a listener (_extensions/course/post-render/passes/dom-ready-in-turns.mjs).  "Before the event" is
// a flag its own first listener sets, not document.readyState: the deferred scripts, Quarto's
// heaviest listeners among them, run when readyState is already "interactive".
{
  const add = document.addEventListener;
  let fired = false;
  add.call(document, "DOMContentLoaded", () => { fired = true; });
  document.addEventListener = function (type, listener, options) {
    if (type !== "DOMContentLoaded" || fired || typeof listener !== "function")
      return add.call(this, type, listener, options);
    return add.call(this, type, (event) => setTimeout(() => listener.call(this, event)), options);
  };
}
