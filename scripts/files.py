"""Writing files so that a crash never leaves half a result: several files at once (all or none),
or one file only when its content changed (so that an unchanged rebuild touches nothing)."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

Content = bytes | str


def write_if_changed(path: Path, text: str) -> bool:
    """Write `text` to `path` (through a temp file and a rename) unless it already holds exactly that.
    Returns whether the file was written."""
    path = Path(path)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    atomic_write({path: text})
    return True


def atomic_write(files: dict[Path | str, Content]) -> None:
    """Write several files so that either all of them change or none does.

    Phase 1 (_stage) writes every file to a temp file next to its target (same filesystem) and
    fsyncs it; a failure there removes the temps and leaves every target untouched.  Phase 2
    (_swap_in) renames the temps over the targets (os.replace is atomic per file); a failure there
    puts back the targets already replaced, from backups taken before the first rename.
    """
    staged = _stage(files)
    backups: dict[Path, Path | None] = {}
    try:
        backups = _back_up([target for _, target in staged])
        _swap_in(staged, backups)
    finally:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        for backup in backups.values():
            if backup is not None:
                backup.unlink(missing_ok=True)


def _stage(files: dict[Path | str, Content]) -> list[tuple[Path, Path]]:
    """Each content in a fsynced temp file beside its target: [(temp, target)]."""
    staged: list[tuple[Path, Path]] = []
    try:
        for target, content in files.items():
            target = Path(target)
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
            staged.append((Path(tmp), target))
            with os.fdopen(fd, "wb") as f:
                f.write(content.encode("utf-8") if isinstance(content, str) else content)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o644)
    except BaseException:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        raise
    return staged


def _back_up(targets: list[Path]) -> dict[Path, Path | None]:
    """{target: a hard link (or copy) of its current content, or None if it does not exist yet}."""
    backups: dict[Path, Path | None] = {}
    try:
        for target in targets:
            backups[target] = None
            if target.exists():
                backup = target.with_name(f".{target.name}.bak")
                backup.unlink(missing_ok=True)
                try:
                    os.link(target, backup)
                except OSError:                       # no hard links here: copy instead
                    shutil.copy2(target, backup)
                backups[target] = backup
    except BaseException:
        for backup in backups.values():
            if backup is not None:
                backup.unlink(missing_ok=True)
        raise
    return backups


def _swap_in(staged: list[tuple[Path, Path]], backups: dict[Path, Path | None]) -> None:
    """Rename every temp over its target; on any failure, restore the targets already replaced."""
    done: list[Path] = []
    try:
        for tmp, target in staged:
            _replace(tmp, target)
            done.append(target)
    except BaseException:
        for target in done:
            backup = backups[target]
            if backup is not None:
                os.replace(backup, target)
            else:
                target.unlink(missing_ok=True)
        raise


def _replace(src: Path, dst: Path) -> None:
    """os.replace, in its own function so that tests can make it fail half-way."""
    os.replace(src, dst)
