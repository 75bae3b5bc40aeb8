// A canary for _extensions/course/post-render/native-mathml.mjs: it writes MathML Core from mathjax-full's
// internal tree, through its serializer (SerializedMmlVisitor, some of whose methods it overrides) and
// the tree's nodes (kind, TeX class spacing, attributes, embellished operators).  Those are internals,
// not MathJax's public API: a mathjax-full release may move them, and then formulas would draw wrong or
// the render fail far from the cause.  Each is checked here, and a missing one fails naming
// native-mathml.mjs and what moved.  (The module is imported only after its own imports resolve.)
import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {createRequire} from "node:module";

const require = createRequire(import.meta.url);
const WRITER = new URL("../../_extensions/course/post-render/native-mathml.mjs", import.meta.url);
const SOURCE = readFileSync(WRITER, "utf8");
// the serializer's methods native-mathml.mjs overrides (they must still be the ones it calls)
const OVERRIDDEN = ["visitTree", "visitDefault", "visitNode", "visitTextNode", "quoteHTML", "getDataAttributes", "getAttributes"];
// what it reads on every node of the tree, and on some kinds
const NODE = {kind: "string", isKind: "function", childNodes: "object", parent: "object", isInferred: "boolean",
  isEmbellished: "boolean", attributes: "object"};
const ATTRIBUTES = ["get", "getExplicit", "getAllAttributes", "isSet"];
// a formula with each construct native-mathml.mjs treats: spacing, a variant, a prime, an accent, limits, a table
const EVERYTHING = "h'_t = \\hat{x} - \\mathbb{R} + \\sum_{i=1}^{n} x_i \\begin{aligned} a &= b \\\\ c &= (d) \\end{aligned}";

/** What native-mathml.mjs uses and mathjax-full lacks, given its serializer class and a typeset tree. */
export function missingInternals(Visitor, root) {
  const missing = [];
  for (const name of OVERRIDDEN) if (typeof Visitor.prototype[name] !== "function") missing.push(`SerializedMmlVisitor.${name}()`);
  if (typeof root.setTeXclass !== "function") missing.push("MmlNode.setTeXclass()");
  const visit = (node) => {
    if (node.kind === "text") {
      if (typeof node.getText !== "function") missing.push("TextNode.getText()");
      return;
    }
    for (const [name, type] of Object.entries(NODE)) {
      if (typeof node[name] !== type && !(name === "parent" && node === root)) missing.push(`MmlNode.${name} (${type}) on <${node.kind}>`);
    }
    for (const name of ATTRIBUTES) if (typeof node.attributes?.[name] !== "function") missing.push(`MmlNode.attributes.${name}() on <${node.kind}>`);
    if (typeof node.texSpacing !== "function") missing.push(`MmlNode.texSpacing() on <${node.kind}>`);
    if (["mi", "mo", "mn", "mtext"].includes(node.kind) && typeof node.getText !== "function") missing.push(`MmlNode.getText() on <${node.kind}>`);
    if (node.isEmbellished && typeof node.coreMO !== "function") missing.push(`MmlNode.coreMO() on <${node.kind}>`);
    for (const child of node.childNodes ?? []) visit(child);
  };
  visit(root);
  return [...new Set(missing)];
}

const say = (missing) => `_extensions/course/post-render/native-mathml.mjs uses mathjax-full internals that have moved: ${missing.join(", ")}`;

test("the mathjax-full modules native-mathml.mjs and the typesetter load are where they were", () => {
  const typesetter = readFileSync(new URL("../../_extensions/course/post-render/passes/typeset-math.mjs", import.meta.url), "utf8");
  const modules = [...`${SOURCE}\n${typesetter}`.matchAll(/require\("(mathjax-full\/[^"]+)"\)/g)].map((m) => m[1]);
  assert.ok(modules.includes("mathjax-full/js/core/MmlTree/SerializedMmlVisitor.js"), "the serializer's module is among those read");
  const gone = modules.filter((m) => { try { require.resolve(m); return false; } catch { return true; } });
  assert.deepEqual(gone, [], say(gone.map((m) => `module ${m}`)));
});

test("the serializer and tree internals native-mathml.mjs leans on are there", async () => {
  const {SerializedMmlVisitor} = require("mathjax-full/js/core/MmlTree/SerializedMmlVisitor.js");
  const {typesetter} = await import("../../_extensions/course/post-render/passes/typeset-math.mjs");
  const root = typesetter().tree(EVERYTHING, true);
  // every method it calls on its base class is one this list checks
  for (const [, name] of SOURCE.matchAll(/super\.(\w+)\(/g)) assert.ok(OVERRIDDEN.includes(name), `super.${name}() is checked`);
  const missing = missingInternals(SerializedMmlVisitor, root);
  assert.deepEqual(missing, [], say(missing));
  // the canary sings: the same check on a serializer and a tree with one internal each moved
  class Moved extends SerializedMmlVisitor {}
  Object.defineProperty(Moved.prototype, "visitTextNode", {value: undefined});
  const accent = (function find(n) { return n.isKind?.("mover") ? n : (n.childNodes ?? []).map(find).find(Boolean); })(root);
  accent.texSpacing = undefined;
  assert.match(say(missingInternals(Moved, root)), /native-mathml\.mjs .*SerializedMmlVisitor\.visitTextNode\(\), MmlNode\.texSpacing\(\) on <mover>/);
});
