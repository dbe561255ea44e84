"""A relay that runs a command and records both directions of its stdio: the bytes on the wire.

    python tap.py LOG_PREFIX -- COMMAND [ARGS...]   (writes LOG_PREFIX.in and LOG_PREFIX.out)
"""

import os
import subprocess
import sys
import threading


def pump(source, sink, log):
    with open(log, "wb") as record:
        while True:
            chunk = os.read(source, 1 << 16)
            if not chunk:
                break
            record.write(chunk)
            record.flush()
            os.write(sink, chunk) if isinstance(sink, int) else (sink.write(chunk), sink.flush())
    if not isinstance(sink, int):
        sink.close()


def main():
    prefix = sys.argv[1]
    command = sys.argv[3:] if sys.argv[2] == "--" else sys.argv[2:]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    up = threading.Thread(target=pump, args=(0, child.stdin, prefix + ".in"), daemon=True)
    down = threading.Thread(target=pump, args=(child.stdout.fileno(), 1, prefix + ".out"))
    up.start()
    down.start()
    down.join()
    sys.exit(child.wait())


if __name__ == "__main__":
    main()
