-- Each SVG figure's <img> carries the size its file gives, so that the text below it does not move
-- when it arrives, and loads only as it nears the screen (printing loads them all): width and height
-- from the file's root <svg> (its width and height, in px or pt, else its viewBox), loading="lazy".
-- A local SVG whose size cannot be read stops the render, naming it.  (_quarto.yml runs it for the
-- pages' html format; a deck's images are reveal.js's to load.)

local function fail(what)
  error("course figure-size.lua: " .. what, 0)
end

-- the CSS pixel size {width, height} of an SVG file's text, or nil
local function svg_size(text)
  local root = text:sub(1, 4000):match("<svg%f[%s>][^>]*>")
  if not root then return nil end
  local function length(name)
    local number, unit = root:match("%s" .. name .. '="%s*([%d.]+)%s*(%a*)%s*"')
    if not number or (unit ~= "" and unit ~= "px" and unit ~= "pt") then return nil end
    return tonumber(number) * (unit == "pt" and 4 / 3 or 1)
  end
  local width, height = length("width"), length("height")
  if not (width and height) then
    local box = root:match('%sviewBox="([^"]*)"')
    local parts = {}
    for n in (box or ""):gsub(",", " "):gmatch("%S+") do parts[#parts + 1] = tonumber(n) end
    if #parts ~= 4 or not parts[3] or not parts[4] then return nil end
    width, height = parts[3], parts[4]
  end
  return {math.floor(width + 0.5), math.floor(height + 0.5)}
end

function Image(img)
  local src = img.src
  if not src:match("%.svg$") or src:find("://", 1, true) or img.attributes.width or img.attributes.height then
    return nil
  end
  -- a path in the page is relative to the page's own file
  local page = (quarto and quarto.doc.input_file) or PANDOC_STATE.input_files[1] or "."
  local file = pandoc.path.join({pandoc.path.directory(page), src})
  local handle = io.open(file, "r")
  local size = handle and svg_size(handle:read("a"))
  if handle then handle:close() end
  if not size then
    fail("expected a readable size (width and height, or a viewBox) in the SVG figure " .. src .. " (" .. file .. ")")
  end
  img.attributes.width = tostring(size[1])
  img.attributes.height = tostring(size[2])
  img.attributes.loading = "lazy"
  img.attributes.decoding = "async"
  return img
end
