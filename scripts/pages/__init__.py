"""From data to the site: page values and partials, the formatter, diagrams, vendored JavaScript, the render."""
