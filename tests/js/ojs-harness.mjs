// A small stand-in for Quarto's OJS runtime, for browser tests that run without Quarto.
//
// compileOjsPage(texts) parses the OJS cells of one or more .ojs partials (each the body of one OJS
// block on the site: its //| options, then its cells) with
// @observablehq/parser 4.5.0 (the version Quarto bundles) and returns a module script that runs
// them the way the runtime does where it matters for the demos:
//   - cells run in dependency order, not page order; outputs appear in page order, each .qmd in a
//     div with the classes its cell has on the site (the partial's `//| classes:`);
//   - a promise (import(), FileAttachment(...).json()) is awaited before its dependents run;
//   - a `viewof x` cell shows its input; on "input" only the cells that read x re-run (not those
//     that read the element, `viewof x`);
//   - a block marked `//| output: false` runs and shows nothing; elsewhere a cell shows its value
//     only where it is an element (the runtime hides a declaration's other values);
//   - built-ins: `width` (the harness root's width), `FileAttachment` (resolved against the page,
//     like Quarto's), `Generators.observe` (a generator cell: its first value, then each later one
//     re-runs its dependents), and the browser's globals.
// A cell that throws shows an .observablehq--error box and logs console.error, so tests see it.
// Static `import` cells are refused: the site does not use them (see _extensions/course/demo-setup.ojs).
import parser from "@observablehq/parser";

const {parseModule} = parser;

/** The name a reference or a cell id stands for: "x" or "viewof x". */
const nameOf = (node) => (node.type === "ViewExpression" ? `viewof ${node.id.name}` : node.name);

/** Parse the OJS cells of the given .ojs partials into [{name, viewof, refs, params, body}]. */
export function parseCells(partials) {
  const cells = [];
  for (const [part, source] of partials.entries()) {
    const hidden = /^\/\/\|\s*output:\s*false\s*$/m.test(source); // Quarto runs the cells, shows nothing
    for (const cell of parseModule(source).cells) {
      if (cell.body.type === "ImportDeclaration") throw new Error(`${cellClasses(source).join(" ") || "a partial"}: static OJS import cells are not supported`);
      const viewof = cell.id?.type === "ViewExpression";
      const name = viewof ? cell.id.id.name : cell.id?.name ?? null;
      const refs = [...new Set((cell.references ?? []).map(nameOf))];
      const param = (ref) => `$${refs.indexOf(ref)}`;
      // rewrite the body so that every reference is a parameter ($0, $1, …): `viewof x` is not
      // an identifier, and a parameter keeps the body free of the page's globals
      let body = source.slice(cell.body.start, cell.body.end);
      for (const node of [...(cell.references ?? [])].sort((a, b) => b.start - a.start))
        body = body.slice(0, node.start - cell.body.start) + param(nameOf(node)) + body.slice(node.end - cell.body.start);
      cells.push({name, viewof, refs, params: refs.map(param), body, block: cell.body.type === "BlockStatement", part, hidden});
    }
  }
  return cells;
}

/** The classes a demo's cell has on the site: its partial's `//| classes: demo sampling-demo` → ["demo", "sampling-demo"]. */
export function cellClasses(source) {
  const option = /^\/\/\|\s*classes:\s*(.+)$/m.exec(source);
  return option ? option[1].trim().split(/\s+/) : [];
}

/**
 * A module script that runs the cells of the .ojs `partials` inside the element matching `rootSelector`:
 * each partial gets a div there with the classes of its cell (as on the site), holding its
 * cells' outputs in page order.
 */
export function compileOjsPage(partials, rootSelector = "#harness") {
  const cells = parseCells(partials).map((c) =>
    `{name: ${JSON.stringify(c.name)}, viewof: ${c.viewof}, refs: ${JSON.stringify(c.refs)}, part: ${c.part}, hidden: ${c.hidden}, ` +
    `fn: (${c.params.join(", ")}) => ${c.block ? c.body : `(${c.body})`}}`);
  const parts = partials.map(cellClasses);
  return `const cells = [\n${cells.join(",\n")}\n];
${RUNTIME}
start(cells, document.querySelector(${JSON.stringify(rootSelector)}), ${JSON.stringify(parts)});
`;
}

// The page side: evaluation in dependency order, re-running dependents of a changed input.
const RUNTIME = String.raw`
function start(cells, root, parts) {
  const builtins = {
    width: root.clientWidth,
    // the stdlib's Generators.observe, as far as the demos use it: init(notify) pushes values
    Generators: {
      observe(init) {
        const queue = [], waiting = [];
        init((value) => { if (waiting.length) waiting.shift()({value, done: false}); else queue.push(value); });
        return {
          next: () => (queue.length ? Promise.resolve({value: queue.shift(), done: false}) : new Promise((r) => waiting.push(r))),
          [Symbol.asyncIterator]() { return this; },
        };
      },
    },
    FileAttachment: (name) => ({
      url: async () => new URL(name, document.baseURI).href,
      json: async () => {
        const res = await fetch(new URL(name, document.baseURI));
        if (!res.ok) throw new Error("FileAttachment " + name + ": HTTP " + res.status);
        return res.json();
      },
    }),
  };
  const env = new Map(Object.entries(builtins));
  const defines = new Map();
  cells.forEach((c, i) => { if (c.name) { defines.set(c.viewof ? "viewof " + c.name : c.name, i); if (c.viewof) defines.set(c.name, i); } });
  const boxes = parts.map((classes) => {
    const box = root.appendChild(document.createElement("div"));
    box.classList.add(...classes);
    return box;
  });
  const slots = cells.map((c) => boxes[c.part].appendChild(document.createElement("div")));
  // dependents: cells that read a name, transitively
  function dependents(names) {
    const out = new Set();
    let frontier = [...names];
    while (frontier.length) {
      const next = [];
      cells.forEach((c, i) => {
        if (out.has(i) || !c.refs.some((r) => frontier.includes(r))) return;
        out.add(i);
        if (c.name) next.push(c.name, "viewof " + c.name);
      });
      frontier = next;
    }
    return out;
  }
  // order a set of cells so that each runs after the cells it reads from
  function order(set) {
    const done = new Set(), out = [];
    const visit = (i) => {
      if (done.has(i)) return;
      done.add(i);
      for (const r of cells[i].refs) if (defines.has(r) && set.has(defines.get(r))) visit(defines.get(r));
      out.push(i);
    };
    [...set].sort((a, b) => a - b).forEach(visit);
    return out;
  }
  async function runCell(i) {
    const c = cells[i];
    try {
      const args = c.refs.map((r) => {
        if (env.has(r)) return env.get(r);
        if (r in globalThis) return globalThis[r]; // a browser global (Event, document, …), as in the runtime
        throw new Error(r + " is not defined");
      });
      let value = await c.fn(...(await Promise.all(args)));
      if (c.name && !c.viewof && value && typeof value.next === "function" && !(value instanceof Node)) {
        // a generator (Generators.observe): its first value now, each later one re-runs the cell's dependents
        const generator = value;
        value = await (await generator.next()).value;
        (async () => {
          for (;;) {
            const step = await generator.next();
            if (step.done) return;
            env.set(c.name, await step.value);
            rerun([c.name]);
          }
        })().catch((error) => console.error(c.name + ": " + error));
      }
      if (c.viewof) {
        env.set("viewof " + c.name, value);
        env.set(c.name, value.value);
        value.addEventListener("input", () => { env.set(c.name, value.value); rerun([c.name]); });
      } else if (c.name) env.set(c.name, value);
      if (!c.hidden) slots[i].replaceChildren(value instanceof Node ? value : document.createTextNode(""));
    } catch (error) {
      if (c.name) {
        const failed = Promise.reject(error);
        failed.catch(() => {}); // reported below; dependents fail with the same error
        env.set(c.name, failed);
      }
      const box = document.createElement("div");
      box.className = "observablehq--error";
      box.textContent = (c.name || "cell " + i) + ": " + error.message;
      slots[i].replaceChildren(box);
      console.error("OJS cell " + (c.name || i) + " failed: " + error.message);
    }
  }
  let queue = Promise.resolve();
  function rerun(names) {
    const set = dependents(names);
    queue = queue.then(async () => {
      for (const i of order(set)) await runCell(i);
      window.__renders = (window.__renders || 0) + 1;
    });
    return queue;
  }
  queue = queue.then(async () => {
    for (const i of order(new Set(cells.keys()))) await runCell(i);
    window.__demoReady = true;
  });
}`;
