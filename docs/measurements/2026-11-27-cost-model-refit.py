#!/usr/bin/env python3
"""The replicated tree's cost model (docs/measurements/2026-11-26-dd-cost-model.py) refitted to the
walk by occupied slices: the same fit on device run 107 (one and two H100s, `bench --gravity tree
-n 1M,16M --dt 0.0625 --softening 0.05 --theta 0.5`), its predictions beside run 112's four H100s.
Standard library only:  python3 docs/measurements/2026-11-27-cost-model-refit.py"""

import importlib.util
import pathlib

here = pathlib.Path(__file__).parent
spec = importlib.util.spec_from_file_location("model", here / "2026-11-26-dd-cost-model.py")
model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(model)

N1M, N16M, N64M = model.N1M, model.N16M, 4 * model.N16M
runs = {
    "runs 88-89 (before)": ({N1M: 7.6159, N16M: 120.8377}, {N1M: 4.6905, N16M: 66.4883}),
    "run 107 (now)": ({N1M: 6.4511, N16M: 99.8480}, {N1M: 4.1476, N16M: 56.3164}),
}
# Four H100s: run 94 with the walk before, run 112 now (ms per step).
measured = {"runs 88-89 (before)": {(N16M, 4): 38.78, (N64M, 4): 158.09},
            "run 107 (now)": {(N16M, 4): 33.56, (N64M, 4): 135.40}}

for name, (t1, t2) in runs.items():
    model.T1, model.T2 = t1, t2
    model.T_B, model.T_W, model.C1, model.CP, _ = model.fit()
    print(f"{name}: build {model.T_B:.3f} ns/body (every GPU), walk {model.T_W:.3f} ns/body (shared), "
          f"fixed {model.C1:.2f} ms (one GPU) / {model.CP:.2f} ms (several)")
    for (n, p), ms in measured[name].items():
        predicted = model.replicated(n, p)
        print(f"  {n // 2**20}M on {p}: predicted {predicted:.2f} ms, measured {ms:.2f} ms "
              f"({100 * (ms / predicted - 1):+.1f} %); against one GPU's {n // 2**20}M: "
              f"{model.replicated(n, 1) or float('nan'):.2f} ms")
