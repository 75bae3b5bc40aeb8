-- room-clock.lua: stamps every slide of the deck (slides.qmd) with where the room is in the
-- briefing, e.g. "13–27 min · 4. Backpropagation Through Time".
--
-- The first slide of a section carries the section's minutes from the agenda:
--   ## 4. Backpropagation Through Time {#s4-bptt minutes="13–27"}
-- and every slide from there to the next section gets that label.  A slide outside the sections
-- (title, agenda, closing) names its own with clock="…" (and ends the section before it).  The
-- label is a div.room-clock placed right after the slide's heading; slides.scss pins it to the
-- top edge of the slide.

local function clock_div(label)
  return pandoc.Div({pandoc.Plain({pandoc.Str(label)})}, pandoc.Attr("", {"room-clock"}))
end

function Pandoc(doc)
  local section_label = nil
  local blocks = pandoc.List()
  for _, block in ipairs(doc.blocks) do
    blocks:insert(block)
    if block.t == "Header" and block.level <= 2 then
      local minutes, clock = block.attributes["minutes"], block.attributes["clock"]
      if minutes then
        section_label = minutes .. " min · " .. pandoc.utils.stringify(block.content)
      elseif clock then
        section_label = nil
      end
      local label = clock or section_label
      if label then
        blocks:insert(clock_div(label))
      end
    end
  end
  doc.blocks = blocks
  return doc
end
