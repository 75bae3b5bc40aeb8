// A copy of this project as a fresh clone has it (its tracked and untracked-but-not-ignored files:
// no _site/, .quarto/, vendor/ or build/), in a temporary folder outside it, for whatever must not
// touch the work tree: tests/js/new-module.test.mjs, `make demo-places-template` and
// `make bench-modules` each make modules in one with `make module` and render it.
//
//   import {copyProject} from "../../scripts/project_copy.mjs";
//   const {base, project, remove} = copyProject();   // project = base/project, a git repository of one commit
//
// node_modules is linked, not copied, and base/shared links this workplace's ../shared (the corpora
// module.yml files name as ../shared/...), so the copy builds and renders as the project does.
import {execFileSync} from "node:child_process";
import {existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync} from "node:fs";
import {tmpdir} from "node:os";
import {dirname, join, resolve} from "node:path";
import {fileURLToPath} from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const run = (cmd, args, cwd, input) => execFileSync(cmd, args, {cwd, input, encoding: "utf8", stdio: [input ? "pipe" : "ignore", "pipe", "pipe"]});

/** The files a fresh clone of this checkout has, relative to its root. */
export function cloneFiles() {
  return run("git", ["ls-files", "-co", "--exclude-standard", "-z"], ROOT).split("\0")
    .filter((f) => f && existsSync(join(ROOT, f)));      // (a tracked file deleted in the work tree is not in a clone of it)
}

/** Copy the project into a new temporary folder: {base, project, remove}.  With `git` (the default)
    the copy is a repository whose one commit holds every file, so `git status` there shows what changed. */
export function copyProject({prefix = "course-", git = true} = {}) {
  const base = mkdtempSync(join(tmpdir(), prefix));
  const project = join(base, "project");
  mkdirSync(project);
  execFileSync("tar", ["-cf", join(base, "p.tar"), "--null", "-T", "-"],
    {cwd: ROOT, input: cloneFiles().join("\0"), stdio: ["pipe", "ignore", "pipe"]});
  run("tar", ["-xf", join(base, "p.tar")], project);
  rmSync(join(base, "p.tar"));
  symlinkSync(join(ROOT, "node_modules"), join(project, "node_modules"));
  symlinkSync(resolve(ROOT, "../shared"), join(base, "shared"));
  if (git) {
    for (const args of [["init", "-q"], ["add", "-A"], ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base"]])
      run("git", args, project);
  }
  return {base, project, remove: () => rmSync(base, {recursive: true, force: true})};
}
