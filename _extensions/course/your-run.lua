-- {{< your-run >}}  a module page's "Your run" box: the reader chooses or drops the results file their own lab
-- run saved, and the page shows their values beside the course's (_extensions/course/your-run.js, which a
-- small loader here imports only once a file is chosen or dropped, or at load when this device remembers a
-- run).  Markup only: nothing from the file is ever written into the page as HTML.  Nothing in a deck.
local info = require("module-info")

local BOX = [[
<section id="your-run" class="your-run" data-module="%s" aria-labelledby="your-run-title">
<p id="your-run-title" class="your-run-title">Your run beside the course's</p>
<p>After the lab, bring your own numbers here: choose or drop <em>your results file</em>, <code>%s</code>, which the
lab's results cell saves (in Colab it downloads). Every <em>After the Lab</em> box then shows your values beside the
course's and checks its claims on your run, and the demos can play your model. The file stays in your browser,
which remembers it on this device.</p>
<div class="your-run-drop">
<label class="btn your-run-choose" for="your-run-file">Choose your results file</label>
<input type="file" id="your-run-file" class="your-run-file" accept=".json,application/json">
<span class="your-run-hint">or drop it here</span>
</div>
<p class="your-run-status" role="status" aria-live="polite"></p>
<div class="your-run-loaded" hidden>
<fieldset class="your-run-demos"><legend>The demos play</legend>
<label><input type="radio" name="your-run-demos" value="course" checked> the course's model</label>
<label><input type="radio" name="your-run-demos" value="yours"> your model</label>
</fieldset>
<button type="button" class="btn btn-outline-secondary btn-sm your-run-forget">Forget my run</button>
</div>
<script type="module">
// loads your-run.js on first use: a file chosen or dropped, or a run this device remembers
const root = document.getElementById("your-run");
// one import for every file, so the files start in the order they were chosen (two import() calls of a module
// still loading may resolve in either order, and then an earlier file would be taken as the last); a failed
// import is tried again with the next file
let loading;
const go = (file, count = 1) => (loading ??= import(new URL("../../_extensions/course/your-run.js", document.baseURI).href))
  .then((m) => m.start(root, file, count))
  .catch((err) => { loading = undefined; root.querySelector(".your-run-status").textContent = `Your run could not be loaded: ${err.message}`; });
root.querySelector(".your-run-file").addEventListener("change", (e) => { if (e.target.files[0]) go(e.target.files[0]); e.target.value = ""; });
root.addEventListener("dragover", (e) => { e.preventDefault(); root.classList.add("your-run-over"); });
root.addEventListener("dragleave", () => root.classList.remove("your-run-over"));
root.addEventListener("drop", (e) => { e.preventDefault(); root.classList.remove("your-run-over"); const fs = e.dataTransfer.files; if (fs[0]) go(fs[0], fs.length); });
try { if (localStorage.getItem(`course-run:${root.dataset.module}`)) go(); } catch {}
</script>
</section>
]]

return {
  ["your-run"] = function(args, kwargs, meta)
    if not quarto.doc.is_format("html") or quarto.doc.is_format("revealjs") then
      return pandoc.Null()
    end
    local module = info.page_module()
    if not module then
      error("{{< your-run >}} is used outside a module's folder (modules/<id>/)")
    end
    local file = module.lab and module.lab.results_file
    if not file then
      error("{{< your-run >}}: modules/" .. module.id .. "/module.yml names no lab.results_file (the file the lab's results cell saves)")
    end
    return pandoc.RawBlock("html", string.format(BOX, module.id, file))
  end
}
