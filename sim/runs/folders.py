"""Output folders: a fresh one for a command (refusing one that holds another's work), its
lock while a process works in it, and the status a run.json or study.json records, told
apart from a run whose process is gone (killed, or its machine stopped).
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from sim.errors import SimError
from sim.runs.paths import RUN_FILE, STUDY_FILE

try:
    import fcntl
except ImportError:  # not on Windows: folders are not locked there
    fcntl = None

LOCK_FILE = ".lock"


def new_folder(out: Path | str | None, stem: str, hint: str, resume: str | None = None) -> Path:
    """A fresh output folder: `out`, or runs/<stem>-<timestamp>; refuses a non-empty one with
    `hint` (where "{folder}" stands for the folder), or, when it holds an unfinished run or
    study, with the `resume` command to finish it."""
    folder = Path(out) if out is not None else default_folder(stem)
    if folder.exists() and not folder.is_dir():
        raise SimError(f"{folder}: is a file, not a folder")
    if folder.exists() and any(p.name != LOCK_FILE for p in folder.iterdir()):
        for name in (RUN_FILE, STUDY_FILE):
            meta = read_status(folder / name)
            if meta is not None and meta.get("status") not in ("complete", "done"):
                holder = lock_holder(folder)
                if holder is not None:
                    raise SimError(
                        f"{folder}: in use by another sim process (pid {holder}); wait for it"
                        " to finish or stop it, or use another --out"
                    )
                status, why = live_status(folder, meta)
                what = "run" if name == RUN_FILE else f"{meta.get('kind', 'study')} study"
                how = f"finish it with {resume.format(folder=folder)}, or " if resume else ""
                article = "an" if status[:1] in "aeiou" else "a"
                raise SimError(
                    f"{folder}: holds {article} {status} {what}{why}; {how}use another --out"
                )
        raise SimError(f"{folder}: " + hint.format(folder=folder))
    make_folder(folder)
    return folder


def default_folder(stem: str) -> Path:
    """runs/<stem>-<timestamp>: where a command puts its folder when --out does not say."""
    return Path("runs") / f"{stem}-{datetime.now().strftime('%Y%m%d-%H%M%S')}"


def make_folder(folder: Path) -> None:
    """mkdir -p, with a failure (a file in the way, a read-only disk) named in one line."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise SimError(f"{folder}: a file is in the way of this folder") from None
    except OSError as exc:
        raise SimError(f"{folder}: cannot create the folder: {exc.strerror}") from None


def read_status(path: Path) -> dict | None:
    """A run.json or study.json as it stands, None when it is missing or unreadable."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def lock_holder(folder: Path) -> str | None:
    """The pid of the process holding `folder`'s lock, or None when nobody does (the kernel
    drops a lock when its holder dies, so a `running` folder nobody holds was stopped: killed,
    or its machine went down)."""
    path = Path(folder) / LOCK_FILE
    if fcntl is None or not path.is_file():
        return None
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return os.read(fd, 64).decode("ascii", "replace").strip() or "?"
        return None
    finally:
        os.close(fd)  # drops the probe's own lock


def live_status(folder: Path, meta: dict) -> tuple[str, str]:
    """(status, ' (reason)') of a run or study folder as it stands: a folder that says
    `running` but whose lock nobody holds was stopped without a word (kill -9, a crash)."""
    status = str(meta.get("status", "unfinished"))
    if status == "running" and lock_holder(folder) is None:
        return "interrupted", " (its process is gone: killed, or its machine stopped)"
    return status, f" ({one_line_text(meta['reason'])})" if meta.get("reason") else ""


def one_line_text(text: object, limit: int = 200) -> str:
    """A recorded reason as one short line."""
    words = " ".join(str(text).split())
    return words if len(words) <= limit else words[: limit - 3] + "..."


@contextmanager
def locked(folder: Path) -> Iterator[None]:
    """Hold `folder`'s lock file while working on it; refuse when another process holds it.

    The kernel drops the lock when its holder dies however it dies, so a lock left by
    a killed run is never in the way; the file keeps the holder's pid for the message.
    """
    path = Path(folder) / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise SimError(f"{folder}: cannot write in this folder: {exc.strerror}") from None
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise
                os.lseek(fd, 0, os.SEEK_SET)
                holder = os.read(fd, 64).decode("ascii", "replace").strip() or "?"
                raise SimError(
                    f"{folder}: in use by another sim process (pid {holder}); wait for it to"
                    " finish or stop it"
                ) from None
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        os.close(fd)  # closing drops the lock
