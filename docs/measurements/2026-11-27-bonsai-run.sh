#!/usr/bin/env bash
# Runs Bonsai (build-pack/bonsai.tar.xz, made by 2026-11-27-bonsai-build.sh) on a Plummer sphere on
# the GPU machine, for the comparison with our tree code in the same device call.
#   from the repository root:  bash docs/measurements/2026-11-27-bonsai-run.sh N THETA LOG [STEPS]
#   or: source docs/measurements/2026-11-27-bonsai-run.sh; bonsai_run N THETA LOG [STEPS]
#   e.g. bonsai_run 1048576 0.5 bonsai-1M-t05.log; bonsai_run 16777216 0.5 bonsai-16M-t05.log
# Unpacks the pack into .bonsai/ (.bonsai/bonsai/{bin,lib}), runs in .bonsai/run/ (Bonsai writes its
# gpuLog there) under `timeout ${BONSAI_TIMEOUT:-300}`:
#   bonsai2_slowdust --plummer N --theta THETA --eps 0.05 --dt 0.0625 -T 1e9 -I STEPS --log
# Bonsai's stdout goes to LOG (each TIME line once), its stderr to LOG.stderr (the same TIME lines
# again, and the rest of its --log output). STEPS (default 10, at most 31) steps after step 0.
#
# The TIME line (runtime/src/gpu_iterate.cpp, octree::iterate), in seconds:
#   TIME [rank] TOTAL: t  Grav: g (GPUgrav e , LET Com: c)  Build: b  Domain: ... tPredCor: p
# Its fields are totals since the start of the run, but iterate_once() zeroes them at the start of
# every step while iter < 32, so up to step 31 each TIME line is that step's alone (hence STEPS <= 31).
#   Build = host wall time of sort_bodies + build + allocateTreePropMemory + compute_properties
#           (ends with execStream->sync(): the tree build, keys and sort included, finished on the GPU)
#   Grav  = host wall time of approximate_gravity up to gravStream->sync() (the tree walk + forces)
#   GPUgrav = CUDA-event time of the gravity kernel alone; TOTAL = the whole step, also predict,
#           correct, energies and the interaction-count copy.
# The figure printed is the median over steps 1..STEPS (step 0 is left out: first launches) of
# Build + Grav, in ms: Bonsai's tree build + gravity, as DEVICE.md's comparison uses it. The medians of
# Build, Grav, GPUgrav and TOTAL alone follow for reference.

bonsai_run() (
  set -uo pipefail
  if [ $# -lt 3 ]; then echo "usage: bonsai_run N THETA LOG [STEPS]" >&2; exit 2; fi
  local n=$1 theta=$2 log=$3 steps=${4:-10}
  if [ "$steps" -gt 31 ] || [ "$steps" -lt 1 ]; then
    echo "STEPS must be 1..31 (TIME lines are per step only while iter < 32)" >&2; exit 2
  fi
  [ -f build-pack/bonsai.tar.xz ] || { echo "no build-pack/bonsai.tar.xz here ($PWD)" >&2; exit 2; }
  mkdir -p .bonsai/run "$(dirname "$log")"
  log=$(cd "$(dirname "$log")" && pwd)/$(basename "$log")
  tar -C .bonsai -xJf build-pack/bonsai.tar.xz || exit 1
  local root=$PWD/.bonsai/bonsai
  export LD_LIBRARY_PATH=$root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  ulimit -s unlimited 2>/dev/null || true   # Bonsai's README asks for it
  local lb=(); command -v stdbuf > /dev/null && lb=(stdbuf -oL)   # keep TIME lines if timed out
  cd .bonsai/run || exit 1
  timeout "${BONSAI_TIMEOUT:-300}" "${lb[@]}" "$root/bin/bonsai2_slowdust" --plummer "$n" --theta "$theta" \
    --eps 0.05 --dt 0.0625 -T 1e9 -I "$steps" --log --logfile "$log.gpulog" > "$log" 2> "$log.stderr"
  local rc=$?
  [ $rc -eq 0 ] || { echo "bonsai2_slowdust exited with $rc (124: timeout); tail of $log.stderr:" >&2; tail -5 "$log.stderr" >&2; }
  # One row per TIME line: build grav gpugrav total (s); step 0 dropped.
  grep '^TIME \[' "$log" | sed -E 's/.*TOTAL: ([^[:space:]]+).*Grav: ([^[:space:]]+) \(GPUgrav ([^[:space:]]+) ,.*Build: ([^[:space:]]+).*/\4 \2 \3 \1/' \
    | tail -n +2 > "$log.steps"
  local k; k=$(wc -l < "$log.steps")
  if [ "$k" -eq 0 ]; then echo "bonsai N=$n theta=$theta: no per-step TIME lines in $log" >&2; exit 1; fi
  med() { awk "{print $1}" "$log.steps" | sort -g | awk '{v[NR]=$1} END {m = NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.2f", 1000*m}'; }
  echo "bonsai N=$n theta=$theta steps=$k: median build+grav $(med '$1+$2') ms" \
       "(medians: build $(med '$1') grav $(med '$2') GPUgrav $(med '$3') step $(med '$4') ms) log $log"
  exit $rc
)

# Run when called; when sourced, only define bonsai_run (a sourcing script's own arguments would
# otherwise be taken for N THETA LOG).
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  bonsai_run "$@"
fi
