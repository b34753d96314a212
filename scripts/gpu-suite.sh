#!/usr/bin/env bash
# The GPU run: CUDA tests, sanitizer passes and benchmark sweeps on the GPU machine (H200).
# Builds nothing. Run from the repository root with a build folder made on a development machine
# (-DCMAKE_CUDA_ARCHITECTURES=90) whose shared libraries were bundled into <build>/lib:
#
#   scripts/gpu-suite.sh                # BUILD=build-device by default
#   BUILD=build-x scripts/gpu-suite.sh
#
# Writes logs, JSON and SASS summaries under $OUT (or ./gpu-suite-out) and prints a short table
# last. Budget: about 5 minutes on an H200; each stage has its own timeout so one slow stage
# cannot eat the whole device session.
set -uo pipefail

BUILD=${BUILD:-build-device}
OUT=${OUT:-$PWD/gpu-suite-out}
QUICK=${QUICK:-0}  # 1: smaller sweeps (about 2 minutes)
mkdir -p "$OUT"

find_exe() {  # first existing of the candidate paths
    for p in "$@"; do [ -x "$p" ] && { echo "$p"; return 0; }; done
    return 1
}
NBODY=$(find_exe "$BUILD/app/nbody" "$BUILD/nbody" "$BUILD/bin/nbody") || { echo "gpu-suite: no nbody executable under $BUILD" >&2; exit 2; }
TESTS=$(find_exe "$BUILD/tests/nbody_cuda_tests" "$BUILD/nbody_cuda_tests" "$BUILD/bin/nbody_cuda_tests") || { echo "gpu-suite: no nbody_cuda_tests under $BUILD" >&2; exit 2; }
NBODY=$(readlink -f "$NBODY")
TESTS=$(readlink -f "$TESTS")

export LD_LIBRARY_PATH="$PWD/$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export NBODY_EXECUTABLE="$NBODY"   # the tests run the executable through this
export NBODY_SOURCE_DIR="$PWD"
export NBODY_AUTOTUNE_CACHE="$OUT/autotune-cache.json"

status=0
stage() { echo; echo "=== $* ($(date +%T))"; }
run() {  # run LOG TIMEOUT CMD...: output to LOG and to the console tail; records failures
    local log=$1 limit=$2; shift 2
    local t0=$SECONDS
    timeout "$limit" "$@" >"$OUT/$log" 2>&1
    local rc=$?
    tail -n 25 "$OUT/$log"
    echo "--- $log: exit $rc in $((SECONDS - t0)) s"
    [ $rc -eq 0 ] || status=1
    return $rc
}

stage "device"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv \
    | tee "$OUT/device.txt"
"$NBODY" --version | tee -a "$OUT/device.txt"

stage "kernel resources (registers, local memory = spills) and SASS opcode counts"
if command -v cuobjdump >/dev/null; then
    cuobjdump --dump-resource-usage "$NBODY" >"$OUT/resource-usage.txt" 2>&1
    # One line per force-kernel instance: REG, STACK, LOCAL. LOCAL/STACK must be 0.
    grep -A1 "force_kernel" "$OUT/resource-usage.txt" | grep -E "Function|REG" | paste - - \
        | sed -E 's/.*force_kernelILi([0-9]+)ELi([0-9]+)ELi([0-9]+)ELi([0-9]+)E.*REG:([0-9]+) STACK:([0-9]+) SHARED:([0-9]+) LOCAL:([0-9]+).*/U=\1 q=\2 B=\3 F=\4 REG=\5 STACK=\6 LOCAL=\8/' \
        >"$OUT/resource-summary.txt"
    echo "instances: $(wc -l <"$OUT/resource-summary.txt"); with spills/stack: $(grep -cvE 'STACK=0 LOCAL=0' "$OUT/resource-summary.txt")"
    grep -E "^U=8 q=2 B=4 F=3 |^U=32 q=2 B=4 F=3 |^U=8 q=2 B=8 F=3 |^U=32 q=32 B=4 F=3 " "$OUT/resource-summary.txt"
    # Product instances (kernel flags 3); the symbol is looked up, not spelled, so that a change
    # of the kernel's parameter list cannot make this stage dump nothing.
    for inst in 4_1_1 8_1_2 8_2_4 32_2_4 8_2_8 8_4_1; do
        IFS=_ read -r u q b <<<"$inst"
        sym=$(grep -oE "_ZN5nbody4cuda6detail12force_kernelILi${u}ELi${q}ELi${b}ELi3E[A-Za-z0-9_]*" \
              "$OUT/resource-usage.txt" | head -1)
        [ -n "$sym" ] || continue
        cuobjdump -sass -fun "$sym" "$NBODY" >"$OUT/sass-U${u}-q${q}-B${b}.txt" 2>&1
        # Opcode histogram of the whole function; the inner loop dominates it for U >= 4.
        printf 'U=%s q=%s B=%s: ' "$u" "$q" "$b"
        grep -oE '^\s+/\*[0-9a-f]+\*/\s+(@!?P[0-9] )?[A-Z0-9_.]+' "$OUT/sass-U${u}-q${q}-B${b}.txt" \
            | awk '{print $NF}' | sed 's/\..*//' | sort | uniq -c | sort -rn \
            | awk '$2 ~ /^(FFMA|FADD|FMUL|MUFU|LDS|BAR|ISETP|IADD3|BRA|SHFL)$/ {printf "%s=%s ", $2, $1}'
        echo
    done | tee "$OUT/sass-summary.txt"
else
    echo "cuobjdump not found; skipped"
fi

stage "CUDA tests (all)"
run cuda-tests.log 240 "$TESTS" --gtest_output="json:$OUT/cuda-tests.json" --gtest_color=no
grep -E "^\[  (PASSED|FAILED|SKIPPED) |NOTE" "$OUT/cuda-tests.log" | head -40

if command -v compute-sanitizer >/dev/null; then
    stage "compute-sanitizer: memcheck (edge sizes, interop), racecheck + synccheck (many small tiles)"
    run sanitizer-memcheck.log 120 compute-sanitizer --tool memcheck --error-exitcode 3 \
        "$TESTS" --gtest_filter='CudaForce.EdgeSizes:CudaForce.SingleBody*:CudaInterop.*' --gtest_color=no
    run sanitizer-racecheck.log 90 compute-sanitizer --tool racecheck --error-exitcode 3 \
        "$TESTS" --gtest_filter='CudaForce.ManySmallTiles' --gtest_color=no
    run sanitizer-synccheck.log 60 compute-sanitizer --tool synccheck --error-exitcode 3 \
        "$TESTS" --gtest_filter='CudaForce.ManySmallTiles' --gtest_color=no
fi

bench() {  # bench NAME TIMEOUT ARGS...
    local name=$1 limit=$2; shift 2
    run "bench-$name.log" "$limit" "$NBODY" bench --backend cuda --json "$OUT/bench-$name.json" "$@"
}

stage "bench: default config, N = 16K, 64K, 256K"
bench default 90 --bodies 16K,64K,256K --repeats 5 --check

if [ "$QUICK" = 1 ]; then
    stage "bench (quick): reduced sweeps"
    bench sweep-16K 60 --bodies 16K --unroll 4,8,16 --block 64,128,256 --threads-per-body 1,2,4,8 --bodies-per-thread 1,2,4 --repeats 3 --min-ms 5 --warmup 1
    bench sweep-64K 60 --bodies 64K --unroll 4,8,16 --block 128,256,512 --threads-per-body 1,2,4 --bodies-per-thread 1,2,4 --repeats 3 --min-ms 5 --warmup 1
else
    stage "bench: full sweep at N = 16K (864 configs, B = 8 refused where not compiled; checked)"
    bench sweep-16K 100 --bodies 16K --sweep --repeats 3 --min-ms 5 --warmup 1 --check
    stage "bench: full sweep at N = 64K (864 configs, checked on a sample)"
    bench sweep-64K 130 --bodies 64K --sweep --repeats 3 --min-ms 5 --warmup 1 --check
fi
stage "bench: pruned sweep at N = 256K, then the auto-tuner"
bench sweep-256K 100 --bodies 256K --unroll 4,8,16,32 --block 128,256,512,1024 --threads-per-body 1,2 \
    --bodies-per-thread 1,2,4 --repeats 3 --min-ms 5 --warmup 1 --autotune
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv \
    | tee "$OUT/clocks-after-sweep.txt"

stage "bench: N = 1M, default config and the 256K winner"
best_args=""
if command -v python3 >/dev/null && [ -s "$OUT/bench-sweep-256K.json" ]; then
    best_args=$(python3 - "$OUT/bench-sweep-256K.json" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))["best"][0]
print(f"--unroll {b['unroll']} --block {b['block']} --threads-per-body {b['threads_per_body']} --bodies-per-thread {b['bodies_per_thread']}")
EOF
)
fi
bench 1M-default 60 --bodies 1M --repeats 3 --warmup 1 --steps 1
if [ -n "$best_args" ]; then
    # shellcheck disable=SC2086
    bench 1M-best 60 --bodies 1M --repeats 3 --warmup 1 --steps 1 $best_args
fi

stage "summary"
if command -v python3 >/dev/null; then
    python3 - "$OUT" <<'EOF' | tee "$OUT/summary.txt"
import glob, json, os, sys
out = sys.argv[1]
targets = {16384: 1.4e12, 65536: 2.0e12, 262144: 2.3e12, 1048576: 2.3e12}
samples = {16384: 0.50e12, 65536: 1.41e12, 262144: 1.52e12, 1048576: 1.58e12}
default, best = {}, {}
for path in sorted(glob.glob(os.path.join(out, "bench-*.json"))):
    try:
        doc = json.load(open(path))
    except Exception as e:
        print(f"(unreadable {path}: {e})"); continue
    name = os.path.basename(path)
    for r in doc.get("runs", []):
        if not r.get("valid") or r.get("ms_per_step") is None: continue
        n = r["bodies"]
        if "default" in name: default[n] = r
        if n not in best or r["ms_per_step"] < best[n]["ms_per_step"]: best[n] = r
def cfg(r): return f"U{r['unroll']} p{r['block']} q{r['threads_per_body']} B{r['bodies_per_thread']}"
print(f"{'N':>8} | {'default ms':>10} {'int/s':>9} | {'best config':<20} {'ms/step':>9} {'int/s':>9} {'%ceil':>6} | {'samples':>8} {'target':>8}")
for n in sorted(set(default) | set(best)):
    d, b = default.get(n), best.get(n)
    ds = f"{d['ms_per_step']:10.4f} {d['interactions_per_second']:9.3e}" if d else f"{'-':>10} {'-':>9}"
    bs = (f"{cfg(b):<20} {b['ms_per_step']:9.4f} {b['interactions_per_second']:9.3e} {b.get('percent_fp32_ceiling') or 0:6.1f}"
          if b else "-")
    print(f"{n:>8} | {ds} | {bs} | {samples.get(n, 0):8.2e} {targets.get(n, 0):8.2e}")
fails = [r for p in glob.glob(os.path.join(out, "bench-*.json")) for r in json.load(open(p)).get("runs", [])
         if r.get("check_passed") is False]
print(f"--check failures: {len(fails)}" + ("".join(f"\n  {cfg(r)} N={r['bodies']} err={r['check_max_relative_error']:.2e}" for r in fails[:10])))
EOF
else
    grep -h -A4 "^best:" "$OUT"/bench-*.log
fi
grep -E "^\[  (PASSED|FAILED) " "$OUT/cuda-tests.log"
echo "gpu-suite: $([ $status -eq 0 ] && echo all stages passed || echo SOME STAGES FAILED) (logs in $OUT)"
exit $status
