-- {{< course-schedule >}}: the course home's schedule, one row per module, read from each
-- modules/<id>/module.yml when the page renders (number, title, day, times, minutes, summary) with
-- links to the module's page, deck, lab page and Colab notebook.  Names no module.
local info = require("module-info")

local function link(text, target)
  return "[" .. text .. "](" .. target .. ")"
end

return {
  ["course-schedule"] = function(args, kwargs, meta)
    local rows = {
      "| Module | When | Minutes | Open |",
      "|:------------------------|:-----------------|:--------|:------------------|",
    }
    for _, m in ipairs(info.modules()) do
      local dir = "modules/" .. m.id .. "/"
      local s = m.schedule
      local total = tonumber(s.briefing_minutes) + tonumber(s.lab_minutes)
      table.insert(rows, "| " .. link("**" .. m.number .. " · " .. m.title .. "**", dir .. "index.qmd")
        .. "<br>" .. m.summary
        .. " | " .. s.day .. "<br>" .. s.briefing_start .. " briefing · " .. s.lab_start .. " lab"
        .. " | " .. total .. " (" .. s.briefing_minutes .. " briefing, " .. s.lab_minutes .. " lab)"
        .. " | " .. link("Briefing", dir .. "index.qmd") .. " · " .. link("Slides", dir .. "slides.qmd")
        .. " · " .. link("Lab", dir .. "lab.qmd") .. " · " .. link("Colab", info.colab_url(m, meta))
        .. " · " .. link("Glossary", dir .. "glossary.qmd") .. " |")
    end
    table.insert(rows, "")
    table.insert(rows, ": The workshop's modules, from each module's `module.yml`. {.course-schedule}")
    return pandoc.read(table.concat(rows, "\n"), "markdown").blocks
  end
}
