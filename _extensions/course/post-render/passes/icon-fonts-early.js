// A web font that loads while the page is already long makes the browser lay out every line again,
// once for Bootstrap Icons (first used late in the page) and twice for AnchorJS's icon font.  This
// asks for them at the end of the head, while the page is still short
// (_extensions/course/post-render/passes/icon-fonts-early.mjs lists them in data-fonts).
for (const font of JSON.parse(document.getElementById("icon-fonts-early").dataset.fonts)) document.fonts.load(`1em ${font}`);
