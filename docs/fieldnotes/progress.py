"""Progress of long work as a reader of the terminal expects it: one live line, or a line each.

Why: a cold build runs every page (minutes on two cores) and used to print nothing until the
end. :class:`Console` prints ordinary lines as they come and progress lines (which page runs,
how many are done of how many, the time so far) as one line rewritten in place when the
output is a terminal, or as a line each when it is not (CI logs, a pipe), so a log keeps every
page and a terminal does not scroll away.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from typing import TextIO


class Console:
    def __init__(self, stream: TextIO | None = None, live: bool | None = None):
        self.stream = stream or sys.stdout
        self.live = self.stream.isatty() if live is None else live
        self.started = time.monotonic()
        self._status = ""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        if self.live:
            self._ticker = threading.Thread(target=self._tick, daemon=True)
            self._ticker.start()

    def line(self, text: str) -> None:
        """An ordinary line: printed above the live line."""
        with self._lock:
            self._clear()
            self.stream.write(text + "\n")
            self._draw()
            self.stream.flush()

    def status(self, text: str) -> None:
        """A progress line: the live line in a terminal, else a line of its own."""
        if not self.live:
            self.line(text)
            return
        with self._lock:
            self._status = text
            self._clear()
            self._draw()
            self.stream.flush()

    def close(self) -> None:
        self._stop.set()
        with self._lock:
            self._clear()
            self._status = ""
            self.stream.flush()

    def _clear(self) -> None:
        if self.live and self._status:
            self.stream.write("\r\x1b[2K")

    def _draw(self) -> None:
        if self.live and self._status:
            width = shutil.get_terminal_size((100, 20)).columns - 1
            clock = f"{time.monotonic() - self.started:4.0f} s  "
            self.stream.write((clock + self._status)[:width])

    def _tick(self) -> None:
        while not self._stop.wait(1.0):
            with self._lock:
                self._clear()
                self._draw()
                self.stream.flush()
