-- {{< course-schedule >}}: the course home's schedule, one entry per module, read from each
-- modules/<id>/module.yml when the page renders (number, title, day, times, minutes, summary) with
-- links to the module's page, deck, lab page and Colab notebook.  Names no module.
local info = require("module-info")

local function link(text, target)
  return "[" .. text .. "](" .. target .. ")"
end

return {
  ["course-schedule"] = function(args, kwargs, meta)
    -- one entry per module (a heading, when, what, where to go): it reads on a phone as on a projector
    local md = {"::: {.course-schedule}"}
    for _, m in ipairs(info.modules()) do
      local dir = "modules/" .. m.id .. "/"
      local s = m.schedule
      local total = tonumber(s.briefing_minutes) + tonumber(s.lab_minutes)
      table.insert(md, "### " .. link("Module " .. m.number .. " · " .. m.title, dir .. "index.qmd")
        .. " {#module-" .. m.id .. " .unnumbered}")
      table.insert(md, "")
      table.insert(md, "**" .. s.day .. "** · " .. s.briefing_start .. " briefing · " .. s.lab_start .. " lab · "
        .. total .. " minutes (" .. s.briefing_minutes .. " briefing, " .. s.lab_minutes .. " lab)")
      table.insert(md, "")
      table.insert(md, m.summary)
      table.insert(md, "")
      table.insert(md, link("Briefing", dir .. "index.qmd") .. " · " .. link("Slides", dir .. "slides.qmd")
        .. " · " .. link("Lab", dir .. "lab.qmd") .. " · " .. link("Open in Colab", info.colab_url(m, meta))
        .. " · " .. link("Glossary", dir .. "glossary.qmd"))
      table.insert(md, "")
    end
    table.insert(md, ":::")
    return pandoc.read(table.concat(md, "\n"), "markdown").blocks
  end
}
