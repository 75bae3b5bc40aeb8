// How long a demo takes to redraw after one of its controls changes, measured in the page.
//
// For each of `repeats` changes: t0 = performance.now() just before an "input" event on the
// control; a MutationObserver on the demo notes the time of its last DOM change; a
// requestAnimationFrame callback registered right after the event runs in the next frame, after
// the OJS runtime's own (Quarto's runtime recomputes in a requestAnimationFrame callback).
//   work: from the start of that frame (or t0, if later) to the demo's last DOM change — the
//         time the redraw itself took, which must fit in one 16.7 ms frame;
//   frame: from t0 to that next frame's callback, once the DOM has changed — input event to
//          next frame, which includes waiting for the frame.
// Each change steps a range input one step down, then back up (a select: the next option).
/** {work, frame, maxWork}: medians and the largest work time, in ms, over `repeats` changes. */
export async function redrawTime(page, root, label, repeats = 9) {
  const runs = await page.evaluate(async ([root, label, repeats]) => {
    const form = [...document.querySelectorAll(`${root} form`)].find((f) => f.textContent.includes(label));
    const input = form.querySelector("select, input[type=range]");
    const target = document.querySelector(root);
    const runs = [];
    for (let i = 0; i < repeats; i++) {
      await new Promise((r) => setTimeout(r, 30)); // let the previous change settle
      let last = null;
      const obs = new MutationObserver(() => { last = performance.now(); });
      obs.observe(target, {subtree: true, childList: true, attributes: true, characterData: true});
      const t0 = performance.now();
      if (input.tagName === "SELECT") input.selectedIndex = (input.selectedIndex + 1) % input.options.length;
      else if (i % 2 === 0) input.stepDown(); else input.stepUp();
      input.dispatchEvent(new Event("input", {bubbles: true}));
      let frameStart, callback;
      do {
        [frameStart, callback] = await new Promise((r) => requestAnimationFrame((ts) => r([ts, performance.now()])));
      } while (last === null && callback - t0 < 1000);
      await new Promise((r) => setTimeout(r, 30)); // any later change of the same update
      obs.disconnect();
      if (last === null) throw new Error(`${root}: "${label}" changed nothing within a second`);
      const start = frameStart < last ? Math.max(frameStart, t0) : t0;
      runs.push({work: last - start, frame: callback - t0});
    }
    return runs;
  }, [root, label, repeats]);
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const round = (x) => Math.round(x * 10) / 10;
  return {work: round(median(runs.map((r) => r.work))), frame: round(median(runs.map((r) => r.frame))),
    maxWork: round(Math.max(...runs.map((r) => r.work)))};
}
