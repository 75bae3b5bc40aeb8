// live-loader.js: the one module the live demo (_live-sampling-demo.ojs) imports from its cells.  The site's
// post-render preloads every module an OJS cell imports as soon as the demos start (passes/ojs-on-demand.mjs),
// so the cells import only this small one; the model and the sampler (live-model.js, live-sampling.js) come
// through it when the reader first presses Write or chooses a file, and never before.
export async function liveModules() {
  const [model, sampling] = await Promise.all([import("./live-model.js"), import("./live-sampling.js")]);
  return {model, sampling};
}
