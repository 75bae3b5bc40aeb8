-- {{< colab >}}      the "Open in Colab" button of the page's module (the module whose folder holds the page)
-- {{< colab url >}}  its address as text, for a link or a sentence
local info = require("module-info")

return {
  ["colab"] = function(args, kwargs, meta)
    local module = info.page_module()
    if not module then
      error("{{< colab >}} is used outside a module's folder (modules/<id>/)")
    end
    local url = info.colab_url(module, meta)
    local what = args[1] and pandoc.utils.stringify(args[1]) or "button"
    if what == "url" then
      return pandoc.Str(url)
    end
    return pandoc.Para({pandoc.Link({pandoc.Str("Open in Colab")}, url, "",
      pandoc.Attr("", {"btn", "btn-warning", "btn-lg", "colab-badge"}, {{"role", "button"}}))})
  end
}
