// For tests/test_run_claims.py: the page's evaluation of a module's claims.json on a results file, as JSON
// on stdout (node tests/js/run-claims-cli.mjs CLAIMS.json RESULTS.json), with the libraries the page uses.
import {readFileSync} from "node:fs";
import {evaluateClaims} from "../../_extensions/course/run-claims.js";

const [claimsPath, resultsPath] = process.argv.slice(2);
const {jsonata} = await import("../../vendor/run-libs.js");
const out = await evaluateClaims(jsonata, JSON.parse(readFileSync(claimsPath, "utf8")), JSON.parse(readFileSync(resultsPath, "utf8")));
process.stdout.write(JSON.stringify(out.map(({name, holds, says}) => ({name, holds, says}))));
