#!/usr/bin/env bash
# Performance run of the full (every pair) force kernel on the GPU machine (H200): the full-kernel
# CUDA tests, race/sync checks of the synchronisation, the SASS loops of the A/B instances, A/B
# timings in one process (same clocks) of version 1 (flags 0), version 2 (3) and the common-mass
# tiles (7, the product; 5 with two barriers), sweeps at 16K/64K/256K/1M, and ncu stall/pipe
# figures of three instances. About 3-4 minutes. Builds nothing: run from the repository root with the
# staged build (scripts/build-device.sh on a development machine, carried along):
#
#   BUILD=build-device scripts/gpu-perf.sh          # OUT=<folder> (default ./gpu-perf-out)
#
# Everything lands in $OUT/perf.tgz (the device tool returns at most 8 files); $OUT/summary.txt is
# also left beside it. The compact table comes last on stdout. Each stage has its own timeout;
# the ncu stage is skipped once the run is past NCU_DEADLINE seconds (default 170).
set -uo pipefail

BUILD=${BUILD:-build-device}
OUT=${OUT:-$PWD/gpu-perf-out}
NCU_DEADLINE=${NCU_DEADLINE:-170}
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

NBODY=$PWD/$BUILD/bin/nbody
TESTS=$PWD/$BUILD/bin/nbody_cuda_tests
for x in "$NBODY" "$TESTS"; do
    [ -x "$x" ] || { echo "gpu-perf: $x is missing (stage the build with scripts/build-device.sh)" >&2; exit 2; }
done
export LD_LIBRARY_PATH="$PWD/$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export NBODY_EXECUTABLE="$NBODY" NBODY_SOURCE_DIR="$PWD"
export NBODY_AUTOTUNE_CACHE="$work/autotune-cache.json"
unset NBODY_FORCE_GRID NBODY_FORCE_FLAGS  # the A/B runs set them through bench options only

status=0
start=$SECONDS
stage() { echo; echo "=== $* (t = $((SECONDS - start)) s)"; }
run() {  # run LOG TIMEOUT CMD...: output to $work/LOG, its tail to the console; failures recorded
    local log=$1 limit=$2; shift 2
    local t0=$SECONDS
    timeout "$limit" "$@" >"$work/$log" 2>&1
    local rc=$?
    tail -n "${TAIL:-6}" "$work/$log"
    echo "--- $log: exit $rc in $((SECONDS - t0)) s"
    [ $rc -eq 0 ] || status=1
    return $rc
}
bench() {  # bench NAME TIMEOUT ARGS...
    local name=$1 limit=$2; shift 2
    TAIL=3 run "bench-$name.log" "$limit" "$NBODY" bench --backend cuda --json "$work/bench-$name.json" "$@"
}

stage "device"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv \
    | tee "$work/device.txt"

stage "CUDA tests of the full kernel (variants x both splits, flags, balanced split, leapfrog, config)"
TAIL=4 run cuda-tests.log 150 "$TESTS" --gtest_color=no --gtest_brief=1 \
    --gtest_filter='*CudaForce*:CudaConfig*:CudaBackend*:CudaKernelVariants*:CudaLeapfrog*:CudaInterop*:BenchJson*'
grep -E "^\[  (PASSED|FAILED) |tests ran" "$work/cuda-tests.log" | head -20

if command -v compute-sanitizer >/dev/null; then
    stage "compute-sanitizer: racecheck + synccheck (double-buffered tiles, split i-blocks), memcheck"
    TAIL=3 run sanitizer-racecheck.log 60 compute-sanitizer --tool racecheck --error-exitcode 3 \
        "$TESTS" --gtest_filter='CudaForce.ManySmallTiles:CudaForce.CommonMassTilesMatchTheReference' --gtest_color=no
    TAIL=3 run sanitizer-synccheck.log 45 compute-sanitizer --tool synccheck --error-exitcode 3 \
        "$TESTS" --gtest_filter='CudaForce.ManySmallTiles:CudaForce.CommonMassTilesMatchTheReference' --gtest_color=no
    TAIL=3 run sanitizer-memcheck.log 60 compute-sanitizer --tool memcheck --error-exitcode 3 \
        "$TESTS" --gtest_filter='CudaForce.EdgeSizes:CudaForce.BalancedScratchFollowsTheSystemSize' --gtest_color=no
fi

stage "SASS: inner loops of the changed instances (opcodes per interaction, same-bank operand pairs)"
if command -v cuobjdump >/dev/null; then
    cuobjdump --dump-resource-usage "$NBODY" >"$work/resource-usage.txt" 2>&1
    grep -A1 "force_kernel" "$work/resource-usage.txt" | grep -E "Function|REG" | paste - - \
        | sed -E 's/.*force_kernelILi([0-9]+)ELi([0-9]+)ELi([0-9]+)ELi([0-9]+)E.*REG:([0-9]+) STACK:([0-9]+) SHARED:([0-9]+) LOCAL:([0-9]+).*/U=\1 q=\2 B=\3 F=\4 REG=\5 STACK=\6 LOCAL=\8/' \
        >"$work/resource-summary.txt"
    echo "instances: $(wc -l <"$work/resource-summary.txt"); with spills/stack: $(grep -cvE 'STACK=0 LOCAL=0' "$work/resource-summary.txt")"
    for inst in 32_2_4_1 32_2_4_5 32_2_4_7 16_1_4_3 16_1_4_7 8_2_4_3 8_2_4_7 32_1_2_7 16_4_4_7 8_2_8_7; do
        IFS=_ read -r u q b f <<<"$inst"
        sym=$(grep -oE "_ZN5nbody4cuda6detail12force_kernelILi${u}ELi${q}ELi${b}ELi${f}E[A-Za-z0-9_]*" \
              "$work/resource-usage.txt" | head -1)
        [ -n "$sym" ] && cuobjdump -sass -fun "$sym" "$NBODY" >"$work/sass-U$u-q$q-B$b-F$f.txt" 2>&1
    done
    python3 - "$work" <<'EOF' | tee "$work/sass-loops.txt"
import collections, glob, os, re, sys
# The hot loops of each instance: backward branches whose bodies have no barrier and at least 16
# interactions (the unrolled j-loops over a tile: two with the common-mass tiles, the unit-mass
# one with fewer FMULs). Per interaction (one MUFU.RSQ each): instructions by
# opcode, and FP32 instructions reading two distinct registers of the same parity without a
# .reuse (Volta+ register files have two banks, even/odd), the suspected issue-slot thief.
def parse(path):
    out = []
    for line in open(path):
        m = re.match(r'\s+/\*([0-9a-f]{4,})\*/\s+(.*?);', line)
        if m: out.append((int(m.group(1), 16), m.group(2).strip()))
    return out
def opcode(ins):
    t = ins.split()
    return (t[1] if t[0].startswith('@') else t[0]).split('.')[0]
for path in sorted(glob.glob(os.path.join(sys.argv[1], 'sass-*.txt'))):
    m = re.search(r'sass-U(\d+)-q(\d+)-B(\d+)-F(\d+)', path)
    if not m: continue
    u, q, b, f = map(int, m.groups())
    insts = parse(path)
    loops = []
    for a, ins in insts:
        mb = re.search(r'BRA\s+(?:`\(\S+\)\s*)?0x([0-9a-f]+)', ins)
        if mb and int(mb.group(1), 16) < a:
            body = [i for x, i in insts if int(mb.group(1), 16) <= x <= a]
            if not any(opcode(i) == 'BAR' for i in body): loops.append(body)
    loops = [l for l in loops if sum(1 for i in l if opcode(i) == 'MUFU') >= 16]
    if not loops:
        print(f'U{u} q{q} B{b} F{f}: no loop found'); continue
    for body in loops:
        # One MUFU.RSQ per interaction: ptxas may unroll U further, so count interactions, not U * B.
        per = max(1, sum(1 for i in body if opcode(i) == 'MUFU'))
        ops = collections.Counter(opcode(i) for i in body)
        same = 0
        for ins in body:
            if opcode(ins) not in ('FADD', 'FMUL', 'FFMA'): continue
            regs = set()
            for s in ins.split(',')[1:]:
                mr = re.match(r'\s*-?\|?R(\d+)(\.reuse)?', s)
                if mr and not mr.group(2): regs.add(int(mr.group(1)))
            par = collections.Counter(r % 2 for r in regs)
            if any(v >= 2 for v in par.values()): same += 1
        fp32 = ops['FADD'] + ops['FMUL'] + ops['FFMA']
        print(f'U{u:<2} q{q:<2} B{b} F{f}: {len(body) / per:5.2f} instr/interaction (FP32 {fp32 / per:5.2f}, '
              f'MUFU {ops["MUFU"] / per:4.2f}, LDS {ops["LDS"] / per:4.2f}, other {(len(body) - fp32 - ops["MUFU"] - ops["LDS"]) / per:4.2f}); '
              f'same-bank FP32 {same / per:4.2f}/interaction')
EOF
else
    echo "cuobjdump not found; skipped"
fi

# Bench options shared by the A/B and sweep runs. --check compares with the double reference.
quick=(--repeats 5 --warmup 2 --min-ms 10)
stage "A/B at 16K: version 1 (flags 0), version 2 (3), common-mass tiles (7; 5 with two barriers)"
bench ab-16K 40 --bodies 16K --unroll 16 --block 256 --threads-per-body 8 --bodies-per-thread 2 \
    --kernel-flags 0,3,5,7 --split classic,balanced "${quick[@]}"
bench ab-16K-b 40 --bodies 16K --unroll 8 --block 256 --threads-per-body 4 --bodies-per-thread 4 \
    --kernel-flags 0,3,5,7 --split classic,balanced "${quick[@]}"
stage "A/B at 64K"
bench ab-64K 60 --bodies 64K --unroll 8 --block 512 --threads-per-body 2,4 --bodies-per-thread 4 \
    --kernel-flags 0,3,5,7 --split classic,balanced "${quick[@]}"
bench ab-64K-b 40 --bodies 64K --unroll 16 --block 1024 --threads-per-body 1 --bodies-per-thread 4 \
    --kernel-flags 3,5,7 "${quick[@]}"
stage "A/B at 256K"
bench ab-256K 80 --bodies 256K --unroll 32 --block 1024 --threads-per-body 2 --bodies-per-thread 4 \
    --kernel-flags 0,1,3,5,7 --split classic,balanced --repeats 3 --warmup 1 --min-ms 30
bench ab-256K-b 60 --bodies 256K --unroll 16 --block 1024 --threads-per-body 1 --bodies-per-thread 4 \
    --kernel-flags 3,5,7 --repeats 3 --warmup 1 --min-ms 30
stage "A/B at 1M (version 2 against the common-mass tiles)"
bench ab-1M 60 --bodies 1M --unroll 16 --block 1024 --threads-per-body 1 --bodies-per-thread 4 \
    --kernel-flags 3,7 --repeats 3 --warmup 1 --steps 1
bench ab-1M-b 60 --bodies 1M --unroll 32 --block 1024 --threads-per-body 2 --bodies-per-thread 4 \
    --kernel-flags 1,5,7 --split balanced --repeats 3 --warmup 1 --steps 1

stage "sweeps of the product (flags 7, automatic split), checked against the reference"
bench sweep-16K 40 --bodies 16K --unroll 4,8,16 --block 128,256,512 --threads-per-body 1,2,4,8 \
    --bodies-per-thread 1,2,4,8 --repeats 3 --warmup 1 --min-ms 5 --check
bench sweep-64K 60 --bodies 64K --unroll 8,16,32 --block 256,512,1024 --threads-per-body 1,2,4 \
    --bodies-per-thread 2,4,8 --repeats 3 --warmup 1 --min-ms 10 --check
bench sweep-256K 90 --bodies 256K --unroll 8,16,32 --block 512,768,1024 --threads-per-body 1,2,4 \
    --bodies-per-thread 2,4,8 --repeats 3 --warmup 1 --min-ms 30
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv \
    | tee "$work/clocks-after-sweeps.txt"
stage "1M: the default config and the 256K winners"
best_args=$(python3 - "$work/bench-sweep-256K.json" <<'EOF'
import json, sys
try:
    runs = [r for r in json.load(open(sys.argv[1]))["runs"] if r.get("valid")]
except Exception:
    runs = []
runs.sort(key=lambda r: r["ms_per_step"])
seen = set()
for r in runs:
    key = (r["unroll"], r["block"], r["threads_per_body"], r["bodies_per_thread"])
    if key in seen: continue
    seen.add(key)
    print(f"--unroll {key[0]} --block {key[1]} --threads-per-body {key[2]} --bodies-per-thread {key[3]}")
    if len(seen) == 3: break
EOF
)
bench 1M-default 30 --bodies 1M --repeats 3 --warmup 1 --steps 1
k=0
while read -r line; do
    [ -n "$line" ] || continue
    k=$((k + 1))
    # shellcheck disable=SC2086
    bench "1M-top$k" 30 --bodies 1M --repeats 3 --warmup 1 --steps 1 $line
done <<<"$best_args"
stage "default config at 16K, 64K, 256K, checked"
bench default 40 --bodies 16K,64K,256K --repeats 5 --check

if command -v ncu >/dev/null; then
    profile() {  # profile NAME FLAGS SPLIT: one force pass at 256K, U16 p1024 q1 B4
        if [ $((SECONDS - start)) -gt "$NCU_DEADLINE" ]; then echo "ncu $1: skipped (past ${NCU_DEADLINE} s)"; return; fi
        TAIL=2 run "ncu-$1.log" 60 ncu --clock-control none -k regex:force_kernel --launch-skip 1 --launch-count 1 \
            --section ComputeWorkloadAnalysis --section WarpStateStats --section InstructionStats \
            --section SchedulerStats -o "$work/ncu-$1" \
            "$NBODY" bench --backend cuda --bodies 256K --unroll 16 --block 1024 --threads-per-body 1 \
            --bodies-per-thread 4 --kernel-flags "$2" --split "$3" --repeats 1 --warmup 0 --steps 1
        [ -f "$work/ncu-$1.ncu-rep" ] || return
        ncu --import "$work/ncu-$1.ncu-rep" --page details >"$work/ncu-$1-details.txt" 2>&1
        ncu --import "$work/ncu-$1.ncu-rep" --page raw --csv >"$work/ncu-$1-raw.csv" 2>&1
    }
    stage "ncu: 256K, U16 p1024 q1 B4: version 2 against the common-mass tiles"
    profile v2 3 auto
    profile v4 7 auto
    python3 - "$work" <<'EOF' | tee "$work/ncu-summary.txt"
import csv, glob, os, re, sys
# Issue and pipe figures, and the stall reasons (cycles per issued instruction) of each profile.
want = re.compile(r'(issue_active|inst_issued.avg.per_cycle_active|warps_active.avg.per_cycle_active|'
                  r'warps_eligible|pipe_(fma|fmaheavy|fmalite|alu|xu|lsu|uniform).*(pct|ratio)|'
                  r'issue_stalled_.*per_issue_active|registers_per_thread|cycles_elapsed.avg.per_second|gpu__time_duration.sum)')
for path in sorted(glob.glob(os.path.join(sys.argv[1], 'ncu-*-raw.csv'))):
    rows = list(csv.reader(open(path)))
    if len(rows) < 3:
        print(os.path.basename(path), 'empty'); continue
    names, units, values = rows[0], rows[1], rows[2]
    print(os.path.basename(path).replace('-raw.csv', ''))
    picked = [(n, u, v) for n, u, v in zip(names, units, values) if want.search(n)]
    stalls = sorted(((float(v.replace(',', '')), n) for n, u, v in picked
                     if 'issue_stalled' in n and re.match(r'^[0-9.,]+$', v)), reverse=True)
    for n, u, v in picked:
        if 'issue_stalled' not in n: print(f'  {n:<75} {v:>14} {u}')
    print('  stall reasons, cycles per issued instruction (largest first):')
    for v, n in stalls[:10]:
        short = n.replace('smsp__average_warps_issue_stalled_', '').replace('_per_issue_active.ratio', '')
        print(f'    {short:<28} {v:8.3f}')
EOF
fi

stage "summary"
python3 - "$work" <<'EOF' | tee "$work/summary.txt"
import glob, json, os, sys
work = sys.argv[1]
targets = {16384: 1.4e12, 65536: 2.0e12, 262144: 2.3e12, 1048576: 2.3e12}
v2best = {16384: 1.908e12, 65536: 2.180e12, 262144: 2.260e12, 1048576: 2.273e12}  # H200 runs 3, 4, 10
runs = []
for path in sorted(glob.glob(os.path.join(work, 'bench-*.json'))):
    try:
        doc = json.load(open(path))
    except Exception as e:
        print(f'(unreadable {path}: {e})'); continue
    for r in doc.get('runs', []):
        if r.get('valid') and r.get('ms_per_step'):
            r['file'] = os.path.basename(path); runs.append(r)
def cfg(r): return f"U{r['unroll']} p{r['block']} q{r['threads_per_body']} B{r['bodies_per_thread']}"
def var(r): return f"{r.get('split', 'auto')}/{r.get('kernel_flags') if r.get('kernel_flags') is not None else 7}"
print('A/B, same process: interactions/s (x1e12) by kernel flags (0 = version 1, 1 = rotated tile,')
print('3 = + one barrier per tile (version 2), 5 = rotated + common-mass tiles, 7 = all three) and split')
ab = {}
for r in runs:
    if r['file'].startswith('bench-ab-'):
        ab.setdefault((r['bodies'], cfg(r)), {})[var(r)] = r['interactions_per_second']
cols = ['classic/0', 'classic/1', 'classic/3', 'classic/5', 'classic/7', 'balanced/1', 'balanced/3',
        'balanced/5', 'balanced/7', 'auto/3', 'auto/5', 'auto/7']
cols = [c for c in cols if any(c in d for d in ab.values())]
print(f"{'N':>8} {'config':<20} " + ' '.join(f'{c:>11}' for c in cols) + '   7/3 (same split)')
for (n, c), d in sorted(ab.items()):
    ratios = [d[f'{g}/7'] / d[f'{g}/3'] for g in ('classic', 'balanced', 'auto') if f'{g}/7' in d and f'{g}/3' in d]
    print(f'{n:>8} {c:<20} ' + ' '.join(f'{d[k] / 1e12:11.3f}' if k in d else f"{'-':>11}" for k in cols)
          + ''.join(f'   {x:5.3f}' for x in ratios))
print()
print('Best of this run (any flags) against the targets')
print(f"{'N':>8} | {'best config':<20} {'split/F':<12} {'ms/step':>9} {'int/s':>9} {'%ceil':>6} | {'v2 best':>8} {'gain':>6} | {'target':>8} met")
best = {}
for r in runs:
    n = r['bodies']
    if n not in best or r['ms_per_step'] < best[n]['ms_per_step']: best[n] = r
for n in sorted(best):
    b = best[n]; ips = b['interactions_per_second']
    print(f"{n:>8} | {cfg(b):<20} {var(b):<12} {b['ms_per_step']:9.4f} {ips:9.3e} {b.get('percent_fp32_ceiling') or 0:6.1f} | "
          f"{v2best.get(n, 0):8.3e} {ips / v2best[n] if n in v2best else 0:6.3f} | {targets.get(n, 0):8.2e} {'yes' if ips >= targets.get(n, 9e99) else 'NO'}")
print()
print('Default config (KernelConfig{}) per N:')
for r in runs:
    if r['file'] in ('bench-default.json', 'bench-1M-default.json'):
        print(f"  {r['bodies']:>8} {cfg(r):<20} {r['ms_per_step']:9.4f} ms {r['interactions_per_second']:9.3e} int/s"
              + (f"  check {r['check_max_relative_error']:.1e}" if 'check_max_relative_error' in r else ''))
fails = [r for r in runs if r.get('check_passed') is False]
print(f'--check failures: {len(fails)}' + ''.join(f"\n  {cfg(r)} {var(r)} N={r['bodies']} err={r['check_max_relative_error']:.2e}" for r in fails[:10]))
EOF
cp "$work/summary.txt" "$OUT/summary.txt"
tar czf "$OUT/perf.tgz" -C "$work" .
echo
echo "gpu-perf: $([ $status -eq 0 ] && echo all stages passed || echo SOME STAGES FAILED) in $((SECONDS - start)) s; results in $OUT/perf.tgz"
exit $status
