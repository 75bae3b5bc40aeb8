// Quarto's own minified build of its OJS runtime, which the pages load (ojs-on-demand.mjs), in place
// of the unminified copy Quarto puts in site_libs/.
import {existsSync, readFileSync} from "node:fs";
import {join} from "node:path";
import {ContractError} from "../contract.mjs";
import {RUNTIME, RUNTIME_MIN} from "./ojs-on-demand.mjs";
import {checkDependencies} from "../dependencies.mjs";

export default {
  name: "minified-ojs-runtime",
  site: true,
  apply(site) {
    const folder = join(site.dir, "site_libs", "quarto-ojs");
    // nothing to do only where no page's author wrote an OJS cell (pages finished earlier count: they load it too)
    if (!site.pages.some((p) => p.inventory?.ojs_cells > 0)) return 0;
    const minified = site.quartoShare && join(site.quartoShare, "formats", "html", "ojs", RUNTIME_MIN);
    if (!minified || !existsSync(minified)) throw new ContractError(this.name, "Quarto's resources", `formats/html/ojs/${RUNTIME_MIN}`);
    // what ojs-on-demand.js calls on it (ojs-runtime-api)
    checkDependencies(this.name, null, site);
    if (!existsSync(join(folder, RUNTIME)) && existsSync(join(folder, RUNTIME_MIN))) return 0;   // done by an earlier render
    if (!existsSync(join(folder, RUNTIME))) throw new ContractError(this.name, "site_libs/quarto-ojs", RUNTIME);
    site.write(join(folder, RUNTIME_MIN), readFileSync(minified));
    site.remove(join(folder, RUNTIME));
    return 1;
  },
};
