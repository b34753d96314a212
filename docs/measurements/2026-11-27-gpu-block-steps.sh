#!/usr/bin/env bash
# Block against shared time steps on the GPU tree (docs/TREE.md, "Block time steps"; issue 32 item
# 3: 1M bodies to 1 Gyr, >= 2.5x fewer force evaluations and >= 2x faster at equal energy error).
# One GPU. Runs, in the repository root on the GPU machine:
#   tests   the new GPU tests (nbody_cuda_tests --gtest_filter='GpuBlockSteps*'), next to nbody in D
#   setup   milky-way-andromeda.toml at 1M bodies (--bodies 1048576: `run` takes no 1M suffix), written once to
#           $OUT/mwa-1m.nbsnap (--steps 0), so the runs do not each build the scene
#   shared  shared steps at dt 0.04, 0.02 (the scene's own) and 0.01
#   block   block steps at dt_max 0.16 with eta 0.4, 0.2 (the default), 0.1 and 0.05 (--max-level 8)
# every run `--backend cuda --gravity tree` to t = 102.4 (1.00 Gyr: the scene's time unit is
# 9.78 Myr, "galactic" units; 102.4 is a whole number of steps of every dt below), the energy from
# the tree's potential (the default for tree runs), each under `timeout`. Step counts (a shared
# step at 1M takes ~7.5 ms on an H100, docs/TREE.md):
#   dt 0.04: 2,560 steps ~20 s; dt 0.02: 5,120 steps ~40 s; dt 0.01: 10,240 steps ~80 s;
#   block dt_max 0.16: 640 steps of dt_max; at 64K on the CPU eta 0.2 took 0.43x the evaluations
#   of shared dt 0.02 in one pass per finest tick (levels 0-3: 8 passes per dt_max, each a whole
#   tree build of ~0.6 ms at 1M plus the walk of the due groups): ~20 s expected, eta 0.1 about
#   twice that and eta 0.4 about half. Estimates, not measurements: the timeouts allow ~4x.
# A run prints its wall time (`/usr/bin/time`, scene loading excluded: the snapshot is read in
# ~1 s), the force evaluations and passes (the "time steps ..." line), the levels, and the energy
# error; the full output of each is in $OUT/<name>.txt and the summary lines in $OUT/summary.txt.
#
# Usage:  docs/measurements/2026-11-27-gpu-block-steps.sh D OUT [PART ...]
#   D     folder with nbody and nbody_cuda_tests (e.g. build-device/bin, or .dev-17/bin)
#   OUT   folder for the output (created)
#   PART  any of tests setup shared block (default: all four, in that order; ~5 min on an H100
#         by the estimates above). `block` and `shared` need `setup` done once in the same OUT.
#   e.g.  LD_LIBRARY_PATH=build-device/lib docs/measurements/2026-11-27-gpu-block-steps.sh build-device/bin /tmp/blk
#         (two calls under a 10-minute limit: ... D OUT tests setup shared, then ... D OUT block)
set -u
D=${1:?"usage: $0 D OUT [tests|setup|shared|block ...]"}
OUT=${2:?"usage: $0 D OUT [tests|setup|shared|block ...]"}
shift 2
[ $# -eq 0 ] && set -- tests setup shared block
D=$(cd "$D" && pwd)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export NBODY_EXECUTABLE=${NBODY_EXECUTABLE:-$D/nbody} NBODY_SOURCE_DIR=${NBODY_SOURCE_DIR:-$PWD}
SNAP=$OUT/mwa-1m.nbsnap
T_END=102.4  # 1.00 Gyr at 9.78 Myr per unit: 640 x 0.16, 2560 x 0.04, 5120 x 0.02, 10240 x 0.01
SUMMARY=$OUT/summary.txt

{
    echo "# $(date -u) $(uname -n); git $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
    nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader 2>/dev/null || true
} | tee -a "$SUMMARY"

# run NAME LIMIT_S COMMAND...: the command under timeout, its output in $OUT/NAME.txt, the lines
# that matter (and the wall time) in the summary.
run() {
    local name=$1 limit=$2
    shift 2
    echo "## $name: $*" | tee -a "$SUMMARY"
    local began=$SECONDS
    timeout "$limit" /usr/bin/time -f "wall %e s" "$@" >"$OUT/$name.txt" 2>&1
    local rc=$? note=""
    [ "$rc" = 124 ] && note=" (timed out after $limit s)"
    grep -E "^backend |^time steps |^levels at |relative energy error|energy at start|^wall |^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|^plummer|^force_active|^level 0|^terms per|^levels cpu|warning|error:" \
        "$OUT/$name.txt" | tee -a "$SUMMARY"
    echo "# $name: exit $rc after $((SECONDS - began)) s$note" | tee -a "$SUMMARY"
}

COMMON="run --input $SNAP --backend cuda --gravity tree --t-end $T_END"
for part in "$@"; do
    case $part in
    tests)
        run tests 300 "$D/nbody_cuda_tests" --gtest_color=no --gtest_filter='GpuBlockSteps*'
        ;;
    setup)
        # The scene at 1M (host work: the galaxy models' sampling), converted only.
        run setup 300 "$D/nbody" run --scene "$NBODY_SOURCE_DIR/scenes/milky-way-andromeda.toml" --bodies 1048576 \
            --steps 0 --out "$SNAP" --overwrite
        ;;
    shared)
        # 2,560 / 5,120 / 10,240 steps: ~20 / 40 / 80 s at ~7.5 ms a step.
        run shared-dt0.04 240 "$D/nbody" $COMMON --dt 0.04
        run shared-dt0.02 300 "$D/nbody" $COMMON --dt 0.02
        run shared-dt0.01 480 "$D/nbody" $COMMON --dt 0.01
        ;;
    block)
        # 640 steps of dt_max 0.16 each; the evaluations decide the time (see the estimate above).
        run block-eta0.4 240 "$D/nbody" $COMMON --dt 0.16 --timesteps block --eta 0.4
        run block-eta0.2 300 "$D/nbody" $COMMON --dt 0.16 --timesteps block --eta 0.2
        run block-eta0.1 480 "$D/nbody" $COMMON --dt 0.16 --timesteps block --eta 0.1
        run block-eta0.05 480 "$D/nbody" $COMMON --dt 0.16 --timesteps block --eta 0.05
        ;;
    *)
        echo "unknown part '$part' (tests, setup, shared, block)" >&2
        exit 2
        ;;
    esac
done
echo "# done; summary in $SUMMARY"
