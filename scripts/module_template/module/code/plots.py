"""{{TITLE}}'s measured figures (none yet): draw_all(data) -> {file name: SVG bytes}."""
FIGURE_NAMES: tuple[str, ...] = ()


def draw_all(data: dict) -> dict[str, bytes]:
    return {}
