-- Each After-the-Lab box (a callout the author marks .after-the-lab .after-the-lab-<box>) gets an empty
-- slot, <div class="your-run-slot" data-box="<box>">, as the first thing under its title: where
-- your-run.js writes the student's values beside the course's.  The slot is the course's own markup,
-- written before Quarto makes the callout (so it lands in the callout's body, whatever Quarto's markup
-- for that is).  A box without exactly one .after-the-lab-<box> class stops the render, naming it.
-- (inside Quarto, error() only logs and the render goes on; a failed assert stops it)
local function fail(what)
  assert(false, "course your-run-slots.lua: " .. what)
end

function Div(div)
  if not div.classes:includes("after-the-lab") then return nil end
  local ids = {}
  for _, c in ipairs(div.classes) do
    local id = c:match("^after%-the%-lab%-(.+)$")
    if id then ids[#ids + 1] = id end
  end
  if #ids ~= 1 then
    fail("expected one .after-the-lab-<box> class on each .after-the-lab callout, and found " .. #ids .. " on " .. table.concat(div.classes, " "))
  end
  local slot = pandoc.Div({}, pandoc.Attr("", {"your-run-slot"}, {box = ids[1]}))
  -- the callout's title is its first heading, if it has one
  local at = (div.content[1] and div.content[1].t == "Header") and 2 or 1
  div.content:insert(at, slot)
  return div
end
