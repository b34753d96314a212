#!/usr/bin/env bash
# Run 2 of the Hermite measurements (docs/HERMITE.md): the GPU tests in full, libg6 on the GPU,
# the 16K energy error with ds and fp64 and a smaller eta, the 32K rate with the new defaults
# (block 256, unroll 8). Everything is also written to $OUT/run2.txt.
#   cd .dev-18 && LD_LIBRARY_PATH=$PWD/lib:$PWD OUT=... bash gpu-hermite2.sh
set -u
exec > >(tee "${OUT:-.}/run2.txt") 2>&1
echo "== tests"
timeout 60 ./hermite_cuda_tests 2>&1 | tail -25
echo "== g6 driver on the GPU against the CPU engine"
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
echo "== 16K Plummer, eta 0.01, eps 1/N, t = 10, fp64"
timeout 110 ./nbody_hermite_bench plummer 16384 10 0.01 6.103515625e-05 cuda fp64 | tail -1
echo "== 16K Plummer, eta 0.005, eps 1/N, t = 10, ds"
timeout 80 ./nbody_hermite_bench plummer 16384 10 0.005 6.103515625e-05 cuda ds | tail -1
echo "== 32K Plummer, eta 0.01, eps 1/N, t = 10, ds, block 256 unroll 8"
timeout 100 ./nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds | tail -1
