#!/bin/bash
# stop-after.sh SIGNAL TEXT COMMAND...: runs COMMAND, waits for TEXT in its output and DELAY
# seconds more (default 0.3: a step is then running), sends SIGNAL (TERM, INT, HUP) and prints the
# seconds from the signal to the exit, the exit status and the command's last words on the stop.
# Measures how soon the viewer honours a stop (docs/VIEWER.md, issue 33).
set -u
sig=$1 text=$2
shift 2
log=$(mktemp)
"$@" >"$log" 2>&1 &
pid=$!
until grep -q -- "$text" "$log"; do
    kill -0 "$pid" 2>/dev/null || { echo "ended before '$text':"; cat "$log"; rm -f "$log"; exit 1; }
    sleep 0.05
done
sleep "${DELAY:-0.3}"
t0=$(date +%s.%N)
kill "-$sig" "$pid"
wait "$pid"
rc=$?
t1=$(date +%s.%N)
printf 'exit %d after %.2f s\n' "$rc" "$(echo "$t1 - $t0" | bc)"
grep -E "interrupted by|not waiting" "$log"
rm -f "$log"
