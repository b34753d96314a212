#!/usr/bin/env bash
# The Hermite measurements of docs/HERMITE.md, on the GPU machine, from a carried build folder
# (.dev-18: nbody_cuda_tests, nbody_hermite_bench, g6_hermite, libg6.so, lib/):
#   cd .dev-18 && LD_LIBRARY_PATH=$PWD/lib:$PWD bash gpu-hermite.sh
# PRECISION=1 adds run 2's energy checks (16K with fp64, and ds at eta 0.005). OUT=<folder> keeps a
# copy of everything printed in $OUT/hermite.txt.
# Each part has its own time limit so that one slow part cannot take the others' results.
set -u
[ -n "${OUT:-}" ] && exec > >(tee "$OUT/hermite.txt") 2>&1
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
echo "== tests"
timeout 60 ${TESTS:-./nbody_cuda_tests} --gtest_filter='HermiteCuda*' 2>&1 | grep -E "OK|FAIL|PASSED|error|max relative|N = 1024|Failure|Expected|Which|actual" | head -60
echo "== g6 driver on the GPU against the CPU engine (300-body Plummer, t = 0.3)"
python3 - <<'PY' > plummer300.csv
import random, math
random.seed(5)
print("x,y,z,vx,vy,vz,m")
n = 300
for i in range(n):
    r = 1 / math.sqrt(random.random() ** (-2 / 3) - 1)
    u, p = random.uniform(-1, 1), random.uniform(0, 2 * math.pi)
    s = math.sqrt(1 - u * u)
    v = 0.3 * random.random()
    print(f"{r*s*math.cos(p):.17g},{r*s*math.sin(p):.17g},{r*u:.17g},{v*random.uniform(-1,1):.17g},{v*random.uniform(-1,1):.17g},{v*random.uniform(-1,1):.17g},{1/n:.17g}")
PY
timeout 20 env G6_ENGINE=cpu ./g6_hermite plummer300.csv 0.3 0.02 0.01 > g6_cpu.csv
timeout 20 env G6_ENGINE=cuda G6_VERBOSE=1 ./g6_hermite plummer300.csv 0.3 0.02 0.01 > g6_gpu.csv
python3 - <<'PY'
a = [l.split(",") for l in open("g6_cpu.csv").read().split("\n")[1:] if l]
b = [l.split(",") for l in open("g6_gpu.csv").read().split("\n")[1:] if l]
d = max(abs(float(x) - float(y)) for ra, rb in zip(a, b) for x, y in zip(ra[:6], rb[:6]))
print(f"g6_hermite cuda vs cpu engine: {len(a)} / {len(b)} bodies, max |difference| in x, v = {d:.3e}")
PY
echo "== kernel rates"
timeout 90 ./nbody_hermite_bench kernel 262144 262144 3
timeout 20 ./nbody_hermite_bench kernel 32768 1024 50
timeout 20 ./nbody_hermite_bench kernel 32768 256 50
echo "== 16K Plummer, eta 0.01, eps 1/N, t = 10 (energy)"
timeout 100 ./nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda ds
if [ "${PRECISION:-0}" = 1 ]; then
    echo "== 16K Plummer, eta 0.01, eps 1/N, t = 10, fp64"
    timeout 110 ./nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda fp64 | tail -1
    echo "== 16K Plummer, eta 0.005, eps 1/N, t = 10, ds"
    timeout 80 ./nbody_hermite_bench plummer 16384 10 0.005 6.103515625e-05 cuda ds | tail -1
fi
echo "== 32K Plummer, eta 0.01, eps 1/N, t = 10 (rate)"
timeout 150 ./nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds
