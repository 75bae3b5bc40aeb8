-- module-info.lua: what the shortcodes know of the course and of the page's module, read when a page
-- renders: the page's module is the folder modules/<id>/ that holds it, its metadata that folder's
-- module.yml; the course's settings are `course:` in _quarto.yml.  Names no module.
local M = {}

local function project_dir()
  return (quarto.project and quarto.project.directory) or pandoc.system.get_working_directory()
end

local function read_file(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  return text
end

-- a YAML file as plain Lua values (strings, numbers as strings, lists, tables), via pandoc's reader
local function plain(value)
  local t = pandoc.utils.type(value)
  if t == "Inlines" or t == "Blocks" then return pandoc.utils.stringify(value) end
  if t == "List" then
    local out = {}
    for i, v in ipairs(value) do out[i] = plain(v) end
    return out
  end
  if t == "table" or t == "Meta" then
    local out = {}
    for k, v in pairs(value) do out[k] = plain(v) end
    return out
  end
  return value
end

function M.read_yaml(path)
  local text = read_file(path)
  if not text then return nil end
  return plain(pandoc.read("---\n" .. text .. "\n---\n", "markdown").meta)
end

-- every module of the course, in the order of their numbers
function M.modules()
  local root = pandoc.path.join({project_dir(), "modules"})
  local found = {}
  for _, name in ipairs(pandoc.system.list_directory(root)) do
    local meta = M.read_yaml(pandoc.path.join({root, name, "module.yml"}))
    if meta then table.insert(found, meta) end
  end
  table.sort(found, function(a, b) return tonumber(a.number) < tonumber(b.number) end)
  return found
end

-- the module of the page being rendered (nil outside modules/<id>/)
function M.page_module()
  local input = quarto.doc.input_file
  local rel = pandoc.path.make_relative(input, project_dir())
  local id = rel:match("^modules/([^/]+)/")
  if not id then return nil end
  return M.read_yaml(pandoc.path.join({project_dir(), "modules", id, "module.yml"}))
end

-- course settings: course.github (OWNER/REPO), course.branch
function M.course(meta)
  local course = meta and meta.course
  return {
    github = course and course.github and pandoc.utils.stringify(course.github) or nil,
    branch = course and course.branch and pandoc.utils.stringify(course.branch) or "main",
  }
end

-- the student notebook of a module, as a path in the repository
function M.notebook_path(module)
  return "lab/" .. module.id .. "/" .. module.lab.source:gsub("%.py$", ".ipynb")
end

-- the Colab address of a module's notebook.  On GitHub's runners GITHUB_REPOSITORY names the
-- repository being published (a fork or a renamed one too) and COURSE_REF the branch or tag being
-- published (the workflow sets it); elsewhere `course.github` and `course.branch` of _quarto.yml.
function M.colab_url(module, meta)
  local course = M.course(meta)
  local repo = os.getenv("GITHUB_REPOSITORY")
  if repo == nil or repo == "" then repo = course.github end
  local ref = os.getenv("COURSE_REF")
  if ref == nil or ref == "" then ref = course.branch end
  if not repo then
    error("course.github (OWNER/REPO) is not set in _quarto.yml and GITHUB_REPOSITORY is not set")
  end
  return "https://colab.research.google.com/github/" .. repo .. "/blob/" .. ref .. "/" .. M.notebook_path(module)
end

return M
