#!/usr/bin/env bash
# The precision modes on the GPU machine (H200), issue 9: the CUDA precision tests (and sanitizer
# passes over the ds/fp64 state handling), `nbody accuracy` over N = 2K..128K with the displaced
# sphere and the energy runs, `nbody bench` rates per mode at 64K and 256K, and the SASS opcode
# counts of the precision kernels. Builds nothing: run scripts/build-device.sh on a development
# machine first and carry build-device/. From the repository root:
#
#   scripts/gpu-accuracy.sh                 # BUILD=build-device, OUT=./gpu-accuracy-out
#
# Everything lands in $OUT/accuracy.tgz (logs, JSON, SASS summaries, the per-term floor); the error
# table is printed last. Budget: about 2 minutes on an H200 (each stage has its own timeout; 4 minutes at most).
set -uo pipefail

BUILD=${BUILD:-build-device}
OUT=${OUT:-$PWD/gpu-accuracy-out}
mkdir -p "$OUT"
work=$(mktemp -d)
NBODY=$PWD/$BUILD/bin/nbody
TESTS=$PWD/$BUILD/bin/nbody_cuda_tests
for exe in "$NBODY" "$TESTS"; do
    [ -x "$exe" ] || { echo "gpu-accuracy: $exe is missing (run scripts/build-device.sh here first)" >&2; exit 2; }
done
export LD_LIBRARY_PATH="$PWD/$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export NBODY_EXECUTABLE="$NBODY" NBODY_SOURCE_DIR="$PWD"

status=0
t_start=$SECONDS
stage() { echo; echo "=== $* (+$((SECONDS - t_start)) s)"; }
run() {  # run LOG TIMEOUT CMD...: output to $work/LOG, its tail to the console; failures recorded
    local log=$1 limit=$2; shift 2
    local t0=$SECONDS
    timeout "$limit" "$@" >"$work/$log" 2>&1
    local rc=$?
    tail -n "${TAIL:-15}" "$work/$log"
    echo "--- $log: exit $rc in $((SECONDS - t0)) s"
    [ $rc -eq 0 ] || status=1
    return $rc
}

stage "device"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$work/device.txt"
nproc | sed 's/^/host cores: /' | tee -a "$work/device.txt"

stage "precision tests (tests/cuda/precision_*.cpp)"
filter='PrecisionNames.*:PrecisionDispatch.*:CudaPrecision.*:AccuracyCli.*:PrecisionCli.*'
TAIL=30 run precision-tests.log 120 "$TESTS" --gtest_filter="$filter" --gtest_color=no \
    --gtest_output="json:$work/precision-tests.json"
grep -E "^\[          \]|^\[  (FAILED|SKIPPED) " "$work/precision-tests.log" | head -40

if command -v compute-sanitizer >/dev/null; then
    stage "compute-sanitizer: memcheck over the ds/fp64 state paths, racecheck over the tiled kernels"
    run sanitizer-memcheck.log 90 compute-sanitizer --tool memcheck --error-exitcode 3 "$TESTS" --gtest_color=no \
        --gtest_filter='CudaPrecision.InteropPingPong*:CudaPrecision.SwitchingPrecision*:CudaPrecision.LoadPositions*'
    run sanitizer-racecheck.log 90 compute-sanitizer --tool racecheck --error-exitcode 3 "$TESTS" --gtest_color=no \
        --gtest_filter='CudaPrecision.DisplacedSphere*'
fi

stage "SASS of the precision kernels at the default config (opcodes per instance)"
if command -v cuobjdump >/dev/null; then
    cuobjdump --dump-resource-usage "$NBODY" 2>/dev/null >"$work/precision-resources-all.txt"
    grep -A1 "precision_force_kernel" "$work/precision-resources-all.txt" >"$work/precision-resources.txt"
    # kind 0 = fp32-jbag (kahan), 1 = ds (ref), 2 = fp64, 3 = jbag plain, 4 = ds eq3 (A/B kinds);
    # (U, q, B) = (8, 2, 4) fp32 kinds, (8, 2, 1) fp64.
    for inst in 0_8_2_4 1_8_2_4 3_8_2_4 4_8_2_4 2_8_2_1; do
        IFS=_ read -r k u q b <<<"$inst"
        sym=$(grep -oE "_ZN5nbody4cuda6detail22precision_force_kernelILi${k}ELi${u}ELi${q}ELi${b}EEEv[A-Za-z0-9_]+" \
              "$work/precision-resources-all.txt" | head -1)
        cuobjdump -sass -fun "$sym" "$NBODY" >"$work/sass-prec-k${k}-U${u}-q${q}-B${b}.txt" 2>&1
        printf 'kind=%s U=%s q=%s B=%s: ' "$k" "$u" "$q" "$b"
        grep -oE '^\s+/\*[0-9a-f]+\*/\s+(@!?P[0-9] )?[A-Z0-9_.]+' "$work/sass-prec-k${k}-U${u}-q${q}-B${b}.txt" \
            | awk '{print $NF}' | sed 's/\..*//' | sort | uniq -c | sort -rn \
            | awk '$2 ~ /^(FFMA|FADD|FMUL|MUFU|LDS|DADD|DFMA|DMUL|BAR|SHFL|F2F)$/ {printf "%s=%s ", $2, $1}'
        grep -A1 "$sym" "$work/precision-resources-all.txt" | grep -oE 'REG:[0-9]+' | head -1
    done | tee "$work/precision-sass-summary.txt"
    grep -c "REG" "$work/precision-resources.txt" | sed 's/^/precision kernel instances: /'
else
    echo "cuobjdump not found; skipped"
fi

stage "per-term floor: Emax with the terms summed in double, per way of taking m / r^3 (tests/tools/precision_floor.cu)"
FLOOR=$PWD/$BUILD/bin/nbody_precision_floor
if [ -x "$FLOOR" ]; then
    TAIL=20 run precision-floor.log 120 "$FLOOR" 2048,4096,8192,16384,32768 1
    TAIL=0 run precision-floor-seeds.log 60 "$FLOOR" 2048 6
    grep -E "^ +2048 " "$work/precision-floor-seeds.log"
else
    echo "$FLOOR not built (a build without CUDA); skipped"
fi

stage "nbody accuracy: N = 2K..128K, displaced by 1000, energy runs at 16K (the table is printed last)"
run accuracy.log 150 "$NBODY" accuracy --bodies 2K,4K,8K,16K,32K,64K,128K --offset 1000 --energy \
    --energy-bodies 16K --json "$work/accuracy.json"
cp "$work/accuracy.json" "$OUT/" 2>/dev/null

stage "A/B formulations at the default config: NBODY_JBAG_SUM=plain (Chamomile literal) and NBODY_DS_SEPARATION=eq3 (Sapporo eq. 3)"
TAIL=30 run accuracy-ab.log 90 env NBODY_JBAG_SUM=plain NBODY_DS_SEPARATION=eq3 "$NBODY" accuracy \
    --bodies 2K,4K,8K,16K,32K,64K,128K --precision fp32,fp32-jbag,ds --offset 1000 --json "$work/accuracy-ab.json"

stage "Emax at 2K..8K over seeds 2..6 (one realisation per N in Chamomile's Table 2: how much is the sample?)"
for seed in 2 3 4 5 6; do
    TAIL=0 run "accuracy-seed$seed.log" 30 "$NBODY" accuracy --bodies 2K,4K,8K --precision fp32,fp32-jbag,ds \
        --offset 0 --seed "$seed" --repeats 1 --min-ms 1
    grep -E "Emax|worst body" "$work/accuracy-seed$seed.log" | sed "s/^/seed $seed: /"
done | tee "$work/accuracy-seeds.txt"

stage "nbody bench: rates per mode at 64K and 256K (default config fitted per mode)"
run bench-modes.log 90 "$NBODY" bench --backend cuda --bodies 8K,64K,256K --precision fp32,fp32-jbag,ds,fp64 \
    --repeats 5 --json "$work/bench-modes.json"
stage "nbody bench: best over the compiled instances at 256K, fp32 against fp32-jbag and ds"
TAIL=8 run bench-sweep.log 120 "$NBODY" bench --backend cuda --bodies 256K --precision fp32,fp32-jbag,ds \
    --unroll 4,8 --threads-per-body 1,2,4 --bodies-per-thread 1,2,4 --block 256,512 --repeats 3 --min-ms 5 \
    --warmup 1 --json "$work/bench-sweep.json"

stage "summary"
if command -v python3 >/dev/null; then
    python3 - "$work" <<'EOF' | tee "$work/bench-summary.txt"
import json, os, sys
work = sys.argv[1]
def load(name):
    try:
        return json.load(open(os.path.join(work, name)))
    except Exception as e:
        print(f"({name}: {e})"); return None
doc = load("bench-modes.json")
if doc:
    print("bench, default config fitted per mode (interactions/s, ratio to fp32):")
    rates = {}
    for r in doc.get("runs", []):
        if r.get("valid"):
            rates[(r["bodies"], r.get("precision", "fp32"))] = (r["interactions_per_second"], r)
    for n in sorted({k[0] for k in rates}):
        f = rates.get((n, "fp32"), (0, None))[0]
        cells = []
        for p in ("fp32", "fp32-jbag", "ds", "fp64"):
            if (n, p) in rates:
                v, r = rates[(n, p)]
                cfg = f"U{r['unroll']} p{r['block']} q{r['threads_per_body']} B{r['bodies_per_thread']}"
                cells.append(f"{p} {v:.3e} ({v / f:.3f}, {cfg})" if f else f"{p} {v:.3e}")
        print(f"  N={n}: " + "; ".join(cells))
doc = load("bench-sweep.json")
if doc:
    best = {}
    for r in doc.get("runs", []):
        if r.get("valid"):
            p = r.get("precision", "fp32")
            if p not in best or r["interactions_per_second"] > best[p]["interactions_per_second"]:
                best[p] = r
    f = best.get("fp32", {}).get("interactions_per_second", 0)
    print("bench, best over U 4,8 x q 1,2,4 x B 1,2,4 x p 256,512 at 256K:")
    for p, r in best.items():
        v = r["interactions_per_second"]
        print(f"  {p:9s} {v:.3e} int/s ({v / f if f else 0:.3f} of fp32's best) at U{r['unroll']} p{r['block']} "
              f"q{r['threads_per_body']} B{r['bodies_per_thread']}")
EOF
fi
grep -E "^\[  (PASSED|FAILED) " "$work/precision-tests.log"
tar czf "$OUT/accuracy.tgz" -C "$work" .
echo "gpu-accuracy: $([ $status -eq 0 ] && echo all stages passed || echo SOME STAGES FAILED) in $((SECONDS - t_start)) s;" \
     "outputs in $OUT/accuracy.tgz"
echo
echo "The body that sets Emax, per N and mode (seed 1):"
grep -B1 "worst body" "$work/accuracy.log" | grep -vE '^--$' | sed 's/^\[ *[0-9.]* s\] //'
echo
echo "A/B formulations (jbag plain, ds eq3), default config; compare with the tables below:"
sed -n '/^Emax = /,/^Targets/p' "$work/accuracy-ab.log" | grep -E '^ +[0-9]+ \|' | head -21
echo
# The error table last: everything `nbody accuracy` printed on stdout after the per-mode progress.
sed -n '/^Emax = /,$p' "$work/accuracy.log" | grep -v '^\[ *[0-9.]* s\]'
exit $status
