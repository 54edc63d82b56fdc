"""The cleanup process of the ``file_system`` sharing strategy.

Reads segment names, one a line, on stdin.  Every process of the tree that
started it holds the other end of that pipe; when the last one exits (or is
killed) stdin ends, and every name still in /dev/shm is unlinked.  Names
already unlinked by their last user are skipped."""
import os
import signal
import sys


def main():
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    names = set()
    for line in sys.stdin.buffer:
        name = line.strip().decode(errors="replace")
        if name.startswith("/torchlike_") and "/" not in name[1:]:
            names.add(name)
    for name in names:
        try:
            os.unlink("/dev/shm" + name)
        except OSError:
            pass


if __name__ == "__main__":
    main()
