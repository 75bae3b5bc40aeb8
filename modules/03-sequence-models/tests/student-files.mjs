// The results files Lab 3 really writes along the paths students take (scripts/measure/student_files.py, which
// runs what is not cached under build/student-files/), for the node suites: [{name, what, file, text}].
import {execFileSync} from "node:child_process";
import {readFileSync} from "node:fs";
import {ROOT} from "../../../tests/js/course.mjs";

export function studentFiles(id) {
  const listed = JSON.parse(execFileSync(process.env.PYTHON ?? "python3",
    ["-m", "scripts.measure.student_files", "--module", id, "--json"], {cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"]}));
  return Object.entries(listed).map(([name, {file, what}]) => ({name, what, file, text: readFileSync(file, "utf8")}));
}
