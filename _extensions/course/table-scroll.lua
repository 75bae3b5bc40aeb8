-- Every table of a page in its own scroll box, so that nothing is wider than a phone: the table
-- scrolls sideways in the box (site.css: .table-scroll), which the keyboard can focus and scroll.
-- (_quarto.yml runs it for the pages' html format at post-render; a deck's slides are laid out by reveal.js.)
function Table(tbl)
  return pandoc.Div({tbl}, pandoc.Attr("", {"table-scroll"}, {tabindex = "0"}))
end
