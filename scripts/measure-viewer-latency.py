#!/usr/bin/python3
"""Key-to-effect latency of the viewer's window (issue 33), under Xvfb with xdotool.

Starts `nbody view` in a window, waits for it to settle, then taps F (screenshot) a few times with
xdotool and times each tap to the "saved ..." line the viewer prints once the frame that polled the
key has been drawn and written. Prints one line per tap and the median. The viewer also says how long
reading the frame back and writing the PNG took; less that, the time is the key's latency to the
drawn frame that carries its effect (what a key that writes no file, such as H or Space, waits).
  DISPLAY must be an X server (xvfb-run -a -s "-screen 0 1280x720x24" scripts/measure-viewer-latency.py ...).
  usage: measure-viewer-latency.py NBODY [view arguments...]
"""
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time


def main():
    nbody, args = sys.argv[1], sys.argv[2:]
    workdir = tempfile.mkdtemp(prefix="nbody-latency-")
    proc = subprocess.Popen([nbody, "view", *args], cwd=workdir, stderr=subprocess.PIPE, text=True)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put((time.monotonic(), l)) for l in proc.stderr], daemon=True).start()
    try:
        settle_until = time.monotonic() + float(os.environ.get("SETTLE_S", "15"))
        while time.monotonic() < settle_until:
            try:
                sys.stderr.write(lines.get(timeout=0.5)[1])
            except queue.Empty:
                pass
        window = subprocess.run(["xdotool", "search", "--sync", "--name", "nbody"], capture_output=True, text=True,
                                timeout=30).stdout.split()
        if not window:
            sys.exit("no nbody window found")
        latencies, to_frame = [], []
        for tap in range(int(os.environ.get("TAPS", "5"))):
            while not lines.empty():
                lines.get()
            start = time.monotonic()
            subprocess.run(["xdotool", "key", "--window", window[0], "f"], check=True, timeout=10)
            deadline = start + 20
            while time.monotonic() < deadline:
                try:
                    at, line = lines.get(timeout=0.5)
                except queue.Empty:
                    continue
                if "saved " in line:
                    latencies.append(1e3 * (at - start))
                    write_ms = None
                    try:  # "the screenshot took N ms to read back and write", printed right after
                        follow = lines.get(timeout=2)[1]
                        if "screenshot took " in follow:
                            write_ms = float(follow.split("screenshot took ")[1].split()[0])
                    except queue.Empty:
                        pass
                    if write_ms is not None:
                        to_frame.append(latencies[-1] - write_ms)
                    print(f"tap {tap + 1}: F to 'saved' line {latencies[-1]:.0f} ms" +
                          ("" if write_ms is None else f" (writing the PNG {write_ms:.0f} ms: key to frame {to_frame[-1]:.0f} ms)"))
                    break
            else:
                print(f"tap {tap + 1}: no effect within 20 s (lost)")
            time.sleep(1.0)
        if latencies:
            print(f"median {statistics.median(latencies):.0f} ms over {len(latencies)} taps, max {max(latencies):.0f} ms")
        if to_frame:
            print(f"key to frame: median {statistics.median(to_frame):.0f} ms, max {max(to_frame):.0f} ms")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


if __name__ == "__main__":
    main()
