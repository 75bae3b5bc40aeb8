"""scripts/vendor_js.py's post-render steps on a page's bytes: Quarto's head scripts deferred in the
order they ran, and the icon font cut down to the icons the site names.  (The rendered site, with
every step, is checked in a browser by tests/js/site-rendered.test.mjs.)"""
from __future__ import annotations

import json
import re
import shutil

import pytest

from scripts import vendor_js

HEAD = """<html><head>
<script src="a.js"></script>
<script src="quarto.js" type="module"></script>
<script src="b.js"></script>
<script type="text/javascript">const inline = 1;</script>
<script src="late.js" type="module"></script>
<link href="x.css" rel="stylesheet">
</head><body><script src="body.js"></script></body></html>"""


def head_scripts(html: str) -> list[str]:
    head = html[:html.index("</head>")]
    return re.findall(r"<script\b[^>]*\bsrc=\"[^\"]*\"[^>]*>", head)


def test_head_scripts_are_deferred_in_the_order_they_ran():
    out = vendor_js.deferred_head_scripts(HEAD)
    # before: a.js and b.js ran at once, the two modules after the page was parsed; after: all after
    # parsing, in that same order (a browser runs deferred and module scripts in document order)
    assert head_scripts(out) == ['<script defer src="a.js">', '<script defer src="b.js">',
                                 '<script src="quarto.js" type="module">', '<script src="late.js" type="module">']
    assert "<script type=\"text/javascript\">const inline = 1;</script>" in out     # inline scripts stay
    assert out.endswith('<body><script src="body.js"></script></body></html>')      # the body is left alone
    assert vendor_js.deferred_head_scripts(out) == out                             # a second run changes nothing


def test_a_deck_and_a_page_without_head_scripts_are_left_alone():
    deck = HEAD.replace("<body>", '<body><div class="reveal">')
    assert vendor_js.deferred_head_scripts(deck) == deck
    bare = "<html><head><title>t</title></head><body></body></html>"
    assert vendor_js.deferred_head_scripts(bare) == bare


def quarto_icons():
    share = vendor_js.quarto_share()
    folder = share / "formats" / "html" / "bootstrap" / "dist" if share else None
    if not (folder and (folder / "bootstrap-icons.woff").exists()):
        pytest.skip("no Quarto resources (quarto is not on PATH): no icon font to cut")
    return folder


def test_the_icon_font_keeps_the_icons_the_site_names(tmp_path):
    from fontTools.ttLib import TTFont

    folder = quarto_icons()
    site = tmp_path / "_site"
    libs = site / "site_libs" / "bootstrap"
    libs.mkdir(parents=True)
    for name in ("bootstrap-icons.woff", "bootstrap-icons.css"):
        shutil.copy(folder / name, libs / name)
    (site / "index.html").write_text('<a><i class="bi bi-github"></i></a>', encoding="utf-8")
    # a class in a script, and an icon a script names by itself (Quarto's search: "file-richtext" and `bi-${icon}`)
    (site / "site_libs" / "x.js").write_text('el.className = "bi-clipboard"; card("file-richtext", "show");'
                                             ' const c = `bi bi-${icon}`;', encoding="utf-8")

    assert vendor_js.subset_icon_font(site) == 3
    css = (libs / "bootstrap-icons.css").read_text(encoding="utf-8")
    code = {n: int(c, 16) for n, c in vendor_js.ICON_RULE.findall(css)}
    cmap = TTFont(str(libs / "bootstrap-icons.woff")).getBestCmap()
    assert {code["github"], code["clipboard"], code["file-richtext"]} <= set(cmap), "a named icon is missing from the font"
    assert code["search"] not in cmap, "an icon no page names was kept"
    assert (libs / "bootstrap-icons.woff").stat().st_size < (folder / "bootstrap-icons.woff").stat().st_size / 20

    # a page that names one more icon gets it at the next render (cut from Quarto's copy, not the cut one)
    (site / "page.html").write_text('<i class="bi bi-search"></i>', encoding="utf-8")
    assert vendor_js.subset_icon_font(site) == 4
    assert code["search"] in TTFont(str(libs / "bootstrap-icons.woff")).getBestCmap()


def test_a_render_that_names_no_new_icon_reads_no_file_again_and_cuts_no_font(tmp_path, monkeypatch):
    from fontTools.ttLib import TTFont

    folder = quarto_icons()
    site, state = tmp_path / "_site", tmp_path / ".quarto" / "icon-font.json"
    libs = site / "site_libs" / "bootstrap"
    libs.mkdir(parents=True)
    state.parent.mkdir()
    for name in ("bootstrap-icons.woff", "bootstrap-icons.css"):
        shutil.copy(folder / name, libs / name)
    (site / "index.html").write_text('<i class="bi bi-github"></i>', encoding="utf-8")
    assert vendor_js.subset_icon_font(site, state) == 1
    cut = (libs / "bootstrap-icons.woff").read_bytes()

    # the next render: Quarto copies its whole font back, and the pages are written again unchanged
    shutil.copy(folder / "bootstrap-icons.woff", libs / "bootstrap-icons.woff")
    (site / "index.html").write_text('<i class="bi bi-github"></i>', encoding="utf-8")
    read = []

    class Counted:   # ICON_NAME, counting the files it reads through
        def findall(self, text):
            read.append(text)
            return pattern.findall(text)

    pattern = vendor_js.ICON_NAME
    monkeypatch.setattr(vendor_js, "ICON_NAME", Counted())
    monkeypatch.setattr(vendor_js, "cut_font", lambda *a: pytest.fail("the font was cut again"))
    assert vendor_js.subset_icon_font(site, state) == 1
    assert (libs / "bootstrap-icons.woff").read_bytes() == cut, "the cut font was not put back"
    assert read == [], "an unchanged file was read through again"

    # a page that names one more icon: the font is cut again, from Quarto's copy
    monkeypatch.undo()
    (site / "page.html").write_text('<i class="bi bi-search"></i>', encoding="utf-8")
    assert vendor_js.subset_icon_font(site, state) == 2
    css = (libs / "bootstrap-icons.css").read_text(encoding="utf-8")
    code = {n: int(c, 16) for n, c in vendor_js.ICON_RULE.findall(css)}
    assert {code["github"], code["search"]} <= set(TTFont(str(libs / "bootstrap-icons.woff")).getBestCmap())

    # a state file cut short is only a cache that is lost
    state.write_text('{"files": {', encoding="utf-8")
    assert vendor_js.subset_icon_font(site, state) == 2


def test_the_hidden_source_of_an_echo_false_cell_is_left_out():
    hidden = ('<div class="code-copy-outer-scaffold"><div class="sourceCode cell-code hidden" id="cb1" data-startfrom="3">'
              '<pre class="sourceCode js code-with-copy"><code><span>x = 1</span></code></pre></div>'
              '<button title="Copy to Clipboard" class="code-copy-button"><i class="bi"></i></button></div>\n')
    shown = hidden.replace("cell-code hidden", "cell-code").replace("x = 1", "y = 2")
    out = '<div class="cell">\n' + hidden + '<div class="cell-output-display"><div id="ojs-cell-1"></div></div>\n' + shown + "</div>"
    cleaned = vendor_js.without_hidden_cell_code(out)
    assert "x = 1" not in cleaned and "cell-code hidden" not in cleaned
    assert shown in cleaned, "code a reader is shown (echo: true) stays, with its copy button"
    assert '<div id="ojs-cell-1"></div>' in cleaned, "the cell's output stays"
    assert cleaned.count("<div") == cleaned.count("</div>")


TIPPY_PAGE = """<html><head>
<script defer src="../../site_libs/quarto-html/tippy.umd.min.js"></script>
<link href="../../site_libs/quarto-html/tippy.css" rel="stylesheet">
</head><body><div class="reveal-not"></div></body></html>"""


def test_hover_previews_are_built_on_first_use_after_tippy_loads():
    out = vendor_js.tippy_on_first_hover(TIPPY_PAGE)
    # the lazy wrapper is a module script, so it runs after the deferred tippy.js and before the
    # page's DOMContentLoaded handlers that call window.tippy
    tippy_at = out.index("tippy.umd.min.js")
    wrapper_at = out.index('<script type="module" id="tippy-on-first-hover">')
    assert tippy_at < wrapper_at < out.index("</head>")
    assert vendor_js.tippy_on_first_hover(out) == out, "a second run adds nothing"


def test_a_deck_or_a_page_without_tippy_keeps_its_previews_as_they_are():
    deck = TIPPY_PAGE.replace('<div class="reveal-not">', '<div class="reveal">')
    assert vendor_js.tippy_on_first_hover(deck) == deck
    bare = "<html><head></head><body></body></html>"
    assert vendor_js.tippy_on_first_hover(bare) == bare


ANCHOR_JS = ('this.add=function(A){null===document.head.querySelector("style.anchorjs")&&('
             'A.sheet.insertRule(".anchorjs-link{opacity:0}",A.sheet.cssRules.length),'
             "A.sheet.insertRule('@font-face{font-family:anchorjs-icons;src:url(data:n/a;base64,AAE)}',A.sheet.cssRules.length))}")
ICON_PAGE = """<html><head>
<title>t</title>
<script defer src="../site_libs/quarto-html/anchor.min.js"></script>
<link href="../site_libs/bootstrap/bootstrap-icons.css" rel="stylesheet">
<link href="../site_libs/bootstrap/bootstrap.min.css" rel="stylesheet">
</head><body><h2 class="anchored">A</h2></body></html>"""


ANCHOR_PAGE = """<html><head></head><body><main>
<section id="intro" class="level2">
<h2 class="anchored" data-anchor-id="intro">Intro <code>x</code></h2>
<h3 id="own" class="something anchored">Own id</h3>
<h2 class="unanchored">Not this</h2>
<div id="fig-a" class="quarto-float quarto-figure anchored">
<figure><div class="inner"><img src="a.svg"></div>
</figure>
</div>
<p>after</p>
</section>
</main>
<script id="quarto-html-after-body" type="application/javascript">
  window.document.addEventListener("DOMContentLoaded", function (event) {
    const icon = "\ue9cb";
    const anchorJS = new window.AnchorJS();
    anchorJS.options = {
      placement: 'right',
      icon: icon
    };
    anchorJS.add('.anchored');
  });
</script></body></html>"""


def test_static_heading_anchors_are_anchorjs_links_as_the_last_child_of_each_anchored_element():
    out = vendor_js.static_heading_anchors(ANCHOR_PAGE)
    link = lambda i: vendor_js.anchorjs_link(i, "\ue9cb")
    assert f'<h2 class="anchored" data-anchor-id="intro">Intro <code>x</code>{link("intro")}</h2>' in out
    assert f'<h3 id="own" class="something anchored">Own id{link("own")}</h3>' in out
    assert f'</figure>\n{link("fig-a")}</div>\n<p>after</p>' in out, "after the nested divs, at the float's own end"
    assert '<h2 class="unanchored">Not this</h2>' in out
    assert out.count('class="anchorjs-link ') == 3
    assert 'style="font: 1em / 1 anchorjs-icons; margin-left: 0.1875em;' in link("x")
    assert vendor_js.static_heading_anchors(out) == out, "done twice"
    # other options (or no AnchorJS call at all): left to AnchorJS
    other = ANCHOR_PAGE.replace("placement: 'right'", "placement: 'left'")
    assert vendor_js.static_heading_anchors(other) == other
    bare = ANCHOR_PAGE[:ANCHOR_PAGE.index("<script")] + "</body></html>"
    assert vendor_js.static_heading_anchors(bare) == bare


def test_icon_fonts_are_asked_for_in_the_head_and_anchorjs_style_comes_before_the_sites(tmp_path):
    js = tmp_path / "site_libs" / "quarto-html" / "anchor.min.js"
    js.parent.mkdir(parents=True)
    js.write_text(ANCHOR_JS)
    rules = vendor_js.anchor_rules(tmp_path)
    assert rules == [".anchorjs-link{opacity:0}", "@font-face{font-family:anchorjs-icons;src:url(data:n/a;base64,AAE)}"]
    out = vendor_js.icon_fonts_early(ICON_PAGE, rules)
    head = out[:out.index("</head>")]
    # AnchorJS's own rules first, so the site's stylesheets still override them, as AnchorJS places them
    assert head.index('<style class="anchorjs">') < head.index("bootstrap-icons.css")
    assert "@font-face{font-family:anchorjs-icons" in head
    # both fonts asked for after every stylesheet (which defines them), before the body
    fonts = re.search(r'<script id="icon-fonts-early">for \(const font of (\[.*?\])\)', head)
    assert fonts and json.loads(fonts.group(1)) == ["bootstrap-icons", "anchorjs-icons"]
    assert head.index('id="icon-fonts-early"') > head.index("bootstrap.min.css")
    assert vendor_js.icon_fonts_early(out, rules) == out, "a second run adds nothing"


def test_a_deck_or_a_page_without_icon_fonts_is_left_alone():
    deck = ICON_PAGE.replace("<body>", '<body><div class="reveal">')
    assert vendor_js.icon_fonts_early(deck, ["x{}"]) == deck
    bare = "<html><head><link href=a.css rel=\"stylesheet\"></head><body></body></html>"
    assert vendor_js.icon_fonts_early(bare, []) == bare


def test_the_cells_source_moves_beside_the_page_and_the_loader_fetches_it():
    source = "eyJjb250ZW50cyI6W119"   # base64 of {"contents":[]}
    page = ('<html><head></head><body><script type="module" id="ojs-on-demand">/* loader */</script>\n'
            f'<script type="ojs-module-contents">\n{source}\n</script></body></html>')
    out, moved = vendor_js.ojs_contents_on_demand(page, "index")
    assert moved is not None
    name, text = moved
    assert text == source
    assert re.fullmatch(r"index\.ojs-source-[0-9a-f]{10}\.txt", name), name
    assert f'<script type="ojs-module-contents" data-src="{name}"></script>' in out
    assert source not in out
    assert vendor_js.ojs_contents_on_demand(out, "index") == (out, None), "a second run moves nothing"
    # the name changes with the text, so a cached copy never meets a newer page
    other = vendor_js.ojs_contents_on_demand(page.replace(source, "e30="), "index")[1][0]
    assert other != name
    # the loader fetches every moved source before the runtime reads the tags
    loader = vendor_js.OJS_ON_DEMAND
    assert loader.index("dataset.src") < loader.index("interpretFromScriptTags")


def test_the_cells_source_stays_where_no_loader_would_fetch_it():
    page = '<html><body><script type="ojs-module-contents">\neyJ9\n</script></body></html>'
    assert vendor_js.ojs_contents_on_demand(page, "index") == (page, None)


def test_svg_figures_get_their_size_and_load_near_the_screen(tmp_path):
    figures = tmp_path / "figures"
    figures.mkdir()
    (figures / "plot.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="574.02pt" height="308.22pt" viewBox="0 0 574.02 308.22"></svg>')
    (figures / "diagram.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 980 400" role="img"></svg>')
    page = tmp_path / "m" / "index.html"
    page.parent.mkdir()
    html = ('<p><img src="../figures/plot.svg" class="img-fluid" alt="a plot"></p>'
            '<img src="../figures/diagram.svg" alt="a diagram">'
            '<img src="../figures/photo.png" alt="not an SVG">'
            '<img src="../figures/missing.svg" alt="no file">'
            '<img src="../figures/plot.svg" width="10" alt="sized already">')
    out = vendor_js.sized_lazy_images(html, page)
    tags = re.findall(r"<img\b[^>]*>", out)
    # points are 4/3 of a CSS pixel: the size the browser gives the file itself, so nothing moves when it arrives
    assert 'width="765" height="411" loading="lazy" decoding="async"' in tags[0]
    assert 'width="980" height="400" loading="lazy"' in tags[1]
    assert tags[2:] == ['<img src="../figures/photo.png" alt="not an SVG">', '<img src="../figures/missing.svg" alt="no file">',
                        '<img src="../figures/plot.svg" width="10" alt="sized already">']
    deck = '<div class="reveal">' + html
    assert vendor_js.sized_lazy_images(deck, page) == deck


def test_dom_ready_listeners_run_in_turns_from_the_first_script_of_the_head():
    page = ('<html><head><meta charset="utf-8"><script defer src="a.js"></script><script src="b.js" type="module"></script>'
            '</head><body><script>document.addEventListener("DOMContentLoaded", f)</script></body></html>')
    out = vendor_js.dom_ready_in_turns(page)
    head = out[:out.index("</head>")]
    assert head.index('id="dom-ready-in-turns"') < head.index('src="a.js"'), "the shim must come before every listener"
    assert out.count('id="dom-ready-in-turns"') == 1
    assert vendor_js.dom_ready_in_turns(out) == out, "done twice"
    deck = page.replace("<body>", '<body><div class="reveal">')
    assert vendor_js.dom_ready_in_turns(deck) == deck


def test_blocks_laid_out_before_a_jump_first_in_the_head_after_the_character_set():
    page = ('<!DOCTYPE html>\n<html lang="en"><head>\n\n<meta charset="utf-8">\n<meta name="generator" content="quarto">\n'
            '<link rel="stylesheet" href="site.css"><script defer src="a.js"></script></head><body><main></main></body></html>')
    out = vendor_js.blocks_laid_out_before_a_jump(page)
    head = out[:out.index("</head>")]
    assert head.index('<meta charset="utf-8">') < head.index('id="blocks-laid-out-before-a-jump"') < head.index('rel="stylesheet"')
    assert out.index('<meta charset="utf-8">') < 1024, "the character set must stay in the first 1,024 bytes"
    assert out.count('id="blocks-laid-out-before-a-jump"') == 1
    assert vendor_js.blocks_laid_out_before_a_jump(out) == out, "done twice"
    deck = page.replace("<body>", '<body><div class="reveal">')
    assert vendor_js.blocks_laid_out_before_a_jump(deck) == deck
    # the class the script sets is the one site.css lays every block out for
    css = (vendor_js.ROOT / "site.css").read_text(encoding="utf-8")
    assert f":root:not(.{vendor_js.ALL_BLOCKS_CLASS}) main section > " in css
    assert f'classList.add("{vendor_js.ALL_BLOCKS_CLASS}")' in out


SEARCH_PAGE = """<html><head>
<script defer src="../site_libs/quarto-nav/quarto-nav.js"></script>
<script defer src="../site_libs/quarto-search/autocomplete.umd.js"></script>
<script defer src="../site_libs/quarto-search/fuse.min.js"></script>
<script defer src="../site_libs/quarto-search/quarto-search.js"></script>
<script id="quarto-search-options" type="application/json">{"location": "navbar", "type": "overlay", "keyboard-shortcut": ["f", "/"]}</script>
</head><body><nav><div id="quarto-search" class="" title="Search"></div></nav></body></html>"""


ICON = "M1 2h3z"


def test_the_navbar_search_loads_its_scripts_when_first_reached_for():
    out = vendor_js.search_on_first_use(SEARCH_PAGE, ICON)
    assert "quarto-search/" not in out.split('<script id="search-on-first-use">')[0].split("quarto-nav.js")[1], \
        "a search script is still loaded with the page"
    assert out.count("<script defer src") == 1, "only quarto-nav.js is left in the head"
    loader = out[out.index('<script id="search-on-first-use">'):]
    assert '["../site_libs/quarto-search/autocomplete.umd.js", "../site_libs/quarto-search/fuse.min.js", ' \
           '"../site_libs/quarto-search/quarto-search.js"]' in loader, "the scripts, in their order, for the loader"
    assert '["f", "/"]' in loader, "the page's own shortcut keys"
    assert '<div id="quarto-search" class="type-overlay" title="Search"><div class="aa-Autocomplete search-standin">' in out
    assert 'class="aa-DetachedSearchButton" title="Search" aria-label="Search"' in out
    assert f'<svg class="aa-SubmitIcon" viewBox="0 0 24 24" width="20" height="20" fill="currentColor"><path d="{ICON}">' in out
    assert vendor_js.search_on_first_use(out, ICON) == out, "done twice"
    assert vendor_js.search_on_first_use(SEARCH_PAGE, None) == SEARCH_PAGE, "no icon to draw its button with: left as it is"


def test_the_stand_in_button_has_the_icon_of_the_sites_own_autocomplete(tmp_path):
    js = tmp_path / "site_libs" / "quarto-search" / "autocomplete.umd.js"
    assert vendor_js.search_icon_path(tmp_path) is None
    js.parent.mkdir(parents=True)
    # as autocomplete-js 1.x builds it (minified), other paths before and after it
    js.write_text('r.setAttribute("d","M9 9z");n.setAttribute("class","aa-SubmitIcon"),n.setAttribute("viewBox","0 0 24 24");'
                  'var r=t.document.createElementNS("http://www.w3.org/2000/svg","path");return r.setAttribute("d","M16 15.8z"),'
                  'n.appendChild(r),n}; r.setAttribute("d","M5 5z")', encoding="utf-8")
    assert vendor_js.search_icon_path(tmp_path) == "M16 15.8z"
    # and in Quarto's own copy, where there is one here (the rendered-site suite checks the button on the site)
    share = vendor_js.quarto_share()
    quartos = share / "projects" / "website" / "search" / "autocomplete.umd.js" if share else None
    if quartos and quartos.exists():
        js.write_bytes(quartos.read_bytes())
        assert vendor_js.search_icon_path(tmp_path).startswith("M16.041 15.856c")


def test_a_deck_or_a_search_of_another_kind_keeps_its_search_as_it_is():
    deck = SEARCH_PAGE.replace("<body>", '<body><div class="reveal">')
    assert vendor_js.search_on_first_use(deck, ICON) == deck
    textbox = SEARCH_PAGE.replace('"type": "overlay"', '"type": "textbox"')
    assert vendor_js.search_on_first_use(textbox, ICON) == textbox
    sidebar = SEARCH_PAGE.replace('"location": "navbar"', '"location": "sidebar"')
    assert vendor_js.search_on_first_use(sidebar, ICON) == sidebar
    none = "<html><head></head><body></body></html>"
    assert vendor_js.search_on_first_use(none, ICON) == none
