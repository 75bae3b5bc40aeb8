// Quarto's body script has AnchorJS add a link icon to every element of class "anchored" at
// DOMContentLoaded, after a link into the page has already scrolled to its place: each icon lengthens
// its line, and on a phone a heading that filled its line takes a second one, so the text a reader
// was taken to slides down.  The icons are written into the page here, exactly as AnchorJS makes them
// (its options as Quarto's script sets them: the icon read from the script, placed right, shown on
// hover); AnchorJS skips an element whose last child is its link.
import {expectMatch} from "../contract.mjs";
import {expectCount} from "../inventory.mjs";

const ANCHORJS_CALL = /const icon = "([^"\\]*)";\s*const anchorJS = new window\.AnchorJS\(\);\s*anchorJS\.options = \{\s*placement: 'right',\s*icon: icon\s*\};\s*anchorJS\.add\('\.anchored'\);/;
const ANCHORJS_ICON = "\ue9cb";   // the one glyph of AnchorJS's own icon font, which its script styles for

/** The link AnchorJS 5 appends to an element (placement right, visible on hover, no <base>). */
export function anchorjsLink(id, icon) {
  const font = icon === ANCHORJS_ICON ? "font: 1em / 1 anchorjs-icons; " : "";
  return `<a class="anchorjs-link " aria-label="Anchor" data-anchorjs-icon="${icon}" href="#${id}" `
    + `style="${font}margin-left: 0.1875em; padding-right: 0.1875em; padding-left: 0.1875em;"></a>`;
}

export default {
  name: "heading-anchors",
  // a page with section headings or cross-referenced figures (Quarto marks both "anchored")
  targets: (page) => !page.isDeck && page.inventory.headings + page.inventory.figures > 0,
  apply(page) {
    const {$} = page;
    const script = $("script").filter((i, el) => $(el).text().includes("new window.AnchorJS()")).first();
    const call = expectMatch(this.name, page, ANCHORJS_CALL.exec(script.text() ?? ""), "Quarto's AnchorJS call (icon, placement 'right', add('.anchored'))");
    const icon = JSON.parse(`"${call[1]}"`);
    // AnchorJS's choice of address: the id, else data-anchor-id (Quarto's, on a heading whose section has the id)
    const anchored = $(".anchored").filter((i, el) => Boolean($(el).attr("id") || $(el).attr("data-anchor-id")));
    const {headings, figures} = page.inventory;
    expectCount(this.name, page, headings + figures, anchored.length, 'an element of class "anchored" with an id or data-anchor-id (.anchored)',
      `the author's ${headings} section headings and ${figures} cross-referenced figures`);
    anchored.each((i, el) => { $(el).append(anchorjsLink($(el).attr("id") || $(el).attr("data-anchor-id"), icon)); });
    return anchored.length;
  },
};
