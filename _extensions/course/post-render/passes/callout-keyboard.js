// Enter and Space open a collapsible callout as a click does (its header is a role="button" <div>,
// which gets no click from the keyboard; _extensions/course/post-render/passes/callout-buttons.mjs).
document.addEventListener("keydown", (e) => {
  const toggle = e.target.closest && e.target.closest('[role="button"][data-bs-toggle="collapse"]');
  if (toggle && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); toggle.click(); }
});
