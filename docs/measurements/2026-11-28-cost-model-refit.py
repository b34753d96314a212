#!/usr/bin/env python3
"""The replicated tree's cost model (docs/measurements/2026-11-26-dd-cost-model.py) refitted to the
tree as it is on 2026-11-28 (the relative opening criterion, each GPU's share walked costliest group
first), on H200s: the fit on one and two GPUs of device run 192 (and run 189 for 16M on two, which
the costliest-first change left as it was), its predictions beside the four-GPU points of runs
189, 192 and 193 (`bench --backend cuda --gravity tree --dt 0.0625 --softening 0.05`).
Standard library only:  python3 docs/measurements/2026-11-28-cost-model-refit.py"""

import importlib.util
import pathlib

here = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location("model", here / "2026-11-26-dd-cost-model.py")
model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(model)

N1M, N4M, N16M, N64M = model.N1M, 4 * model.N1M, model.N16M, 4 * model.N16M
model.T1 = {N1M: 4.2818, N16M: 49.8821}   # run 192, b1M-1, b16m-1
model.T2 = {N1M: 3.9083, N16M: 30.8076}   # run 192 b1M-2-new; run 189 b16m-2-old-a
model.T_B, model.T_W, model.C1, model.CP, _ = model.fit()
print(f"fit: build {model.T_B:.3f} ns/body (every GPU), walk {model.T_W:.3f} ns/body (shared), "
      f"fixed {model.C1:.2f} ms (one GPU) / {model.CP:.2f} ms (several)")
measured = {  # (N, GPUs): ms per step, the runs' figures
    (N4M, 1): [13.5349], (N4M, 2): [8.5131], (N1M, 4): [3.6363], (N4M, 4): [6.7112],
    (N16M, 4): [19.8055, 19.8181, 19.7760], (N64M, 4): [74.5420],
}
for (n, p), ms in measured.items():
    predicted = model.replicated(n, p)
    m = sum(ms) / len(ms)
    print(f"  {n // 2**20}M on {p}: predicted {predicted:.2f} ms, measured {m:.2f} ms ({100 * (m / predicted - 1):+.1f} %)")
one16 = model.replicated(N16M, 1)
print(f"16M strong on four: predicted {one16 / model.replicated(N16M, 4):.2f}x, "
      f"measured {49.8821 / 19.80:.2f}x; weak (64M on four against 16M on one): predicted "
      f"{100 * one16 / model.replicated(N64M, 4):.1f} %, measured {100 * 49.8821 / 74.5420:.1f} %")
for p in (4, 8):
    print(f"the model's 16M on {p}: {model.replicated(N16M, p):.2f} ms ({one16 / model.replicated(N16M, p):.2f}x); "
          f"64M on {p}: {model.replicated(N64M, p):.2f} ms; 16M x {p} on {p} (weak): "
          f"{100 * one16 / model.replicated(p * N16M, p):.1f} %" if model.replicated(p * N16M, p) else "")
