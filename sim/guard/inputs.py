"""Reading a user's file with a bound on its size, counted while reading.

`os.stat` says nothing about a device, a pipe or a file that grows: `/dev/zero`
has size 0 and never ends. So the bytes are counted as they arrive, and the
read stops one byte past the bound. The file is opened without blocking, so a
named pipe that nobody writes to reads as empty instead of waiting forever.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

READ_BLOCK = 1 << 20  # bytes per read


class TooLarge(ValueError):
    """The file holds more than the bound allows."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"larger than {limit:,} bytes")
        self.limit = limit


def read_bounded(path: str | Path, limit: int) -> bytes:
    """The bytes of `path`, at most `limit` of them, else TooLarge (raised as soon as byte
    `limit` + 1 is read). FileNotFoundError, IsADirectoryError and other OSErrors pass on."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(21, "Is a directory", str(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)  # a pipe with a writer is read as it comes
        parts, total = [], 0
        while True:
            block = os.read(fd, min(READ_BLOCK, limit + 1 - total))
            if not block:
                return b"".join(parts)
            parts.append(block)
            total += len(block)
            if total > limit:
                raise TooLarge(limit)
    finally:
        os.close(fd)


def read_text_bounded(path: str | Path, limit: int) -> str:
    """read_bounded, decoded as UTF-8 (UnicodeDecodeError when it is not)."""
    return read_bounded(path, limit).decode("utf-8")
