-- Each formula pandoc read, handed to the typesetter (post-render/passes/typeset-math.mjs) as the course's
-- own markup, its TeX as text (Quarto's search index reads it): <span class="course-tex inline">\(TeX\)</span>
-- or <span class="course-tex display" data-number="N">\[TeX\]</span>.  With html-math-method: plain Quarto
-- writes no math script.  Run at post-quarto, after Quarto's cross-references have put a numbered equation's
-- Math in a Span #eq-... and appended "\qquad(N)" to its TeX (read back as the number, else the render stops).
-- (inside Quarto, error() only logs and the render goes on; a failed assert stops it)
local function fail(what)
  assert(false, "course math.lua: " .. what)
end

local function html(text)
  return (text:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub('"', "&quot;"))
end

local function markup(math, number)
  -- the one math stylesheet, on a page or deck with a formula (Quarto writes it to
  -- site_libs/quarto-contrib/course-math/, where the math-font pass puts the font it names)
  quarto.doc.add_html_dependency({name = "course-math", stylesheets = {"math.css"}})
  if math.mathtype == "InlineMath" then
    return pandoc.RawInline("html", '<span class="course-tex inline">\\(' .. html(math.text) .. "\\)</span>")
  end
  local n = number and (' data-number="' .. html(number) .. '"') or ""
  return pandoc.RawInline("html", '<span class="course-tex display"' .. n .. ">\\[" .. html(math.text) .. "\\]</span>")
end

local numbered = {Span = function(span)
  if not span.identifier:match("^eq%-") then return nil end
  local math = span.content[1]
  if #span.content ~= 1 or math.t ~= "Math" or math.mathtype ~= "DisplayMath" then
    fail("expected the equation #" .. span.identifier .. " as one display formula in its Span (Quarto's cross-reference)")
  end
  local tex, number = math.text:match("^(.-)%s*\\qquad%((.-)%)%s*$")
  if not tex then
    fail("expected the number of equation #" .. span.identifier .. ' as Quarto writes it for html-math-method: plain ("\\qquad(N)" after its TeX), and found: ' .. math.text:sub(-40):gsub("%s+", " "))
  end
  span.content = {markup(pandoc.Math("DisplayMath", tex), number)}
  return span
end}

return {numbered, {Math = function(math) return markup(math) end}}
