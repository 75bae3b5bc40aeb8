// One Quarto everywhere: the version the Site workflow publishes with is named once, in
// .quarto-version, and it is the version the tests render with (the rendered-site suite, the deck
// tests and the handouts all run the `quarto` on PATH, through tests/js/site-render.mjs).
import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {join} from "node:path";
import {execFileSync} from "node:child_process";
import {ROOT} from "./qmd-files.mjs";
import {onPath} from "./browser.mjs";

const named = () => readFileSync(join(ROOT, ".quarto-version"), "utf8").trim();
const workflow = (name) => readFileSync(join(ROOT, ".github", "workflows", name), "utf8");

test(".quarto-version names one release", () => {
  assert.match(named(), /^\d+\.\d+\.\d+$/, ".quarto-version must hold one version such as 1.11.0");
});

for (const name of ["site.yml", "tests.yml"]) {
  test(`${name} installs the Quarto named in .quarto-version, and no other`, () => {
    const text = workflow(name);
    assert.match(text, /QUARTO_VERSION=\$\(tr -d '\[:space:\]' < \.quarto-version\)/, `${name} does not read .quarto-version`);
    const setups = text.split("\n").filter((l) => /quarto-dev\/quarto-actions\/setup@/.test(l));
    assert.equal(setups.length, 1, `${name}: one quarto-actions/setup step`);
    const versions = [...text.matchAll(/^\s*version:\s*(.+)$/gm)].map((m) => m[1].trim());
    assert.deepEqual(versions, ["${{ env.QUARTO_VERSION }}"], `${name}: the setup's version must be the one read from .quarto-version`);
    assert.doesNotMatch(text, /QUARTO_VERSION:\s*["']?\d/, `${name} names a Quarto version of its own`);
  });
}

test("the Quarto the tests render with is the one named for publishing", {
  skip: onPath("quarto") ? false : "quarto is not on PATH: nothing here renders, so nothing can differ (install the version in .quarto-version)",
}, () => {
  const have = execFileSync("quarto", ["--version"], {encoding: "utf8"}).trim();
  assert.equal(have, named(), `the tests render with quarto ${have}, the Site workflow publishes with ${named()} ` +
    "(.quarto-version): install that release, or change .quarto-version and check the site with it");
});
