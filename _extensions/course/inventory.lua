-- What the author wrote on this page, counted from pandoc's syntax tree before Quarto's own filters
-- run (at: pre-ast; the headings at post-quarto, below), for the post-render (_extensions/course/post-render/inventory.mjs): each of its
-- passes chooses its pages by these counts, never by Quarto's HTML, and must change exactly as many
-- things as they say.  So a Quarto release that renames or moves the markup a pass works on stops
-- the render instead of leaving the page quietly unfinished.
--
-- Written into the page's head as <meta name="course-inventory" content="{...}">, which travels
-- with the page through `quarto render` of one page and `quarto preview`.  The counts:
--   format             "html" or "revealjs" (a deck)
--   formulas           Math elements (inline and display)
--   callouts           callouts (::: {.callout-*})
--   collapsible        of those, the ones with collapse="true|false" (Quarto draws a toggle for each)
--   figures            cross-referenced figures (#fig-...) that hold an image
--   headings           section headings (## and below; a callout's own title is not one), counted
--                      at post-quarto, so that those a shortcode writes count too
--   ojs_cells          ```{ojs} fences in the page's own file (an include inside a fence is one cell)
--   ojs_hidden         of those, the ones whose source is not shown (echo: false)
--   ojs_demos          of those, the ones whose classes: option names "demo" (the course's demos)
--   search             whether the page is in the site's search index (front matter search: false)

local counts = {formulas = 0, callouts = 0, collapsible = 0, figures = 0, headings = 0, ojs_cells = 0, ojs_hidden = 0, ojs_demos = 0}

local function is_callout(div)
  for _, c in ipairs(div.classes) do
    if c:match("^callout%-") or c == "callout" then return true end
  end
  return false
end

local function holds_image(el)
  local found = false
  pandoc.walk_block(pandoc.Div(el.content), {Image = function() found = true end})
  return found
end

-- a fence's body, with a one-line include shortcode replaced by the included file's text
local function fence_body(text, dir)
  local name = text:match("^%s*{{<%s*include%s+([^%s>]+)%s*>}}%s*$")
  if not name then return text end
  -- "/..." is the project's root (Quarto's include shortcode reads it so)
  local path = name:sub(1, 1) == "/" and pandoc.path.join({quarto.project.directory or ".", name:sub(2)})
    or pandoc.path.join({dir, name})
  local handle = io.open(path, "r")
  if not handle then return text end
  local body = handle:read("a")
  handle:close()
  return body
end

-- echo of a page's OJS cells when the cell does not say: the page's front matter, else its format's
local function default_echo(meta)
  local function bool(v)
    if v == nil then return nil end
    local s = pandoc.utils.stringify(v)
    if s == "false" then return false elseif s == "true" then return true end
    return nil
  end
  local page = bool(meta.echo)
  if page == nil and meta.execute then page = bool(meta.execute.echo) end
  if page ~= nil then return page end
  -- the course's deck format says echo: false (_extension.yml); its pages keep Quarto's default (true)
  return not quarto.doc.is_format("revealjs")
end

-- the ```{ojs} fences of the page's own file, read as text (pandoc's markdown reader does not see
-- "{ojs}" as a class); a fence inside a longer fence (an example of one) is not a cell
local function count_ojs(meta)
  local file = quarto.doc.input_file
  local handle = file and io.open(file, "r")
  if not handle then return end
  local source = handle:read("a")
  handle:close()
  local dir = pandoc.path.directory(file)
  local echo = default_echo(meta)
  local open, is_ojs, body = nil, false, {}
  for line in (source .. "\n"):gmatch("([^\n]*)\n") do
    local ticks, info = line:match("^%s*(```+)%s*(.-)%s*$")
    if open == nil and ticks then
      open, is_ojs, body = #ticks, info:match("^{ojs[%s,}]") ~= nil, {}
    elseif open ~= nil and ticks and #ticks >= open and info == "" then
      if is_ojs then
        counts.ojs_cells = counts.ojs_cells + 1
        local text = fence_body(table.concat(body, "\n"), dir)
        local said = text:match("//|%s*echo:%s*(%a+)")
        local classes = text:match("//|%s*classes:%s*([^\n]*)")
        if classes and (" " .. classes .. " "):find("%sdemo%s") then counts.ojs_demos = counts.ojs_demos + 1 end
        local shown = echo
        if said == "false" then shown = false elseif said == "true" then shown = true end
        if not shown then counts.ojs_hidden = counts.ojs_hidden + 1 end
      end
      open = nil
    elseif open ~= nil then
      body[#body + 1] = line
    end
  end
end

local function count_math(el)
  pandoc.walk_block(pandoc.Div(el.content or {}), {Math = function() counts.formulas = counts.formulas + 1 end})
  if el.caption and el.caption.long then
    pandoc.walk_block(pandoc.Div(el.caption.long), {Math = function() counts.formulas = counts.formulas + 1 end})
  end
end

-- top-down, so that a callout's and a figure's content is counted once, by the branch that stops there
local function walk(blocks, in_callout)
  blocks:walk({
    traverse = "topdown",
    Math = function(m) counts.formulas = counts.formulas + 1; return m, false end,
    Header = function(h)
      if h.level >= 2 and not in_callout then counts.headings = counts.headings + 1 end
    end,
    Figure = function(f)
      if f.identifier:match("^fig%-") and holds_image(f) then counts.figures = counts.figures + 1 end
    end,
    Image = function(img)
      -- an image with #fig-... that pandoc has not made a Figure of (inline in a paragraph)
      if img.identifier:match("^fig%-") then counts.figures = counts.figures + 1 end
      -- its description repeats its figure's caption (counted there): not drawn as text
      return img, false
    end,
    Div = function(div)
      if div.identifier:match("^fig%-") and holds_image(div) then
        counts.figures = counts.figures + 1
        count_math(div)
        return div, false
      end
      if is_callout(div) then
        counts.callouts = counts.callouts + 1
        if div.attributes.collapse == "true" or div.attributes.collapse == "false" then
          counts.collapsible = counts.collapsible + 1
        end
        -- its first heading is its title, not a section
        local rest = pandoc.Blocks(div.content)
        if rest[1] and rest[1].t == "Header" then
          pandoc.walk_block(rest[1], {Math = function() counts.formulas = counts.formulas + 1 end})
          rest:remove(1)
        end
        walk(rest, true)
        return div, false
      end
    end,
  })
end

-- This file runs twice (_quarto.yml, _extension.yml): at pre-ast it counts the author's source and
-- keeps the counts in the document's metadata; at post-quarto, once the course's shortcodes have
-- written their part (the home page's schedule, a heading per module), it counts the section
-- headings, where a callout's title is no longer a heading, and writes the <meta>.
local KEPT = "course-inventory"

function Pandoc(doc)
  local kept = doc.meta[KEPT]
  if kept == nil then
    walk(doc.blocks, false)
    count_ojs(doc.meta)
    counts.format = quarto.doc.is_format("revealjs") and "revealjs" or "html"
    counts.search = not (doc.meta.search ~= nil and pandoc.utils.stringify(doc.meta.search) == "false")
    doc.meta[KEPT] = pandoc.json.encode(counts)
    return doc
  end
  local final = pandoc.json.decode(pandoc.utils.stringify(kept))
  final.headings = 0
  doc.blocks:walk({Header = function(h) if h.level >= 2 then final.headings = final.headings + 1 end end})
  doc.meta[KEPT] = nil
  local json = pandoc.json.encode(final):gsub("&", "&amp;"):gsub('"', "&quot;"):gsub("<", "&lt;")
  quarto.doc.include_text("in-header", '<meta name="course-inventory" content="' .. json .. '">')
  return doc
end
