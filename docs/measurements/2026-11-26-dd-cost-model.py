#!/usr/bin/env python3
"""The cost model of docs/DISTRIBUTED.md, "Beyond one GPU's memory": time per step of the tree
code on P GPUs, (a) replicated (what is built: every GPU holds all N, walks N/P, one all-reduce of
the accelerations) and (b) a domain decomposition with locally essential trees (not built).

Every constant is either fitted to device runs 88-89 (two H100s, docs/measurements/2026-11-26-run8[89]-*)
or an assumption named in the doc; change one here and rerun:  python3 docs/measurements/2026-11-26-dd-cost-model.py
Standard library only. Prints the fit, then the markdown tables the doc holds."""

import math

# ---- measured (run 89, `bench -n <N> --gravity tree --dt 0.0625`, Plummer, theta 0.5, H100) ----
N1M, N16M = 1048576, 16777216
T1 = {N1M: 7.6159, N16M: 120.8377}   # one GPU, ms/step (tree1m-1gpu.log, tree16m-1gpu.log)
T2 = {N1M: 4.6905, N16M: 66.4883}    # two GPUs, --gpus 2 (tree1m-2gpu.log, tree16m-2gpu.log)

# ---- assumptions (each named in the doc) ----
B_NVLINK = 350e9     # B/s: NCCL bus bandwidth of an all-reduce or a transfer between H100s on NVLink (NV18), no NVLS
B_NET = 25e9         # B/s per GPU between machines (InfiniBand, one 200 Gb/s port per GPU); 50e9 for NDR 400 Gb/s
ALPHA = 10e-6        # s: latency of one message or of one step of a tree-shaped collective
GPUS_PER_NODE = 8    # P <= 8: one machine on NVLink; P >= 16: the network
HBM = 84e9           # B usable on an 80 GB H100 (85.5e9 less ~1.5 GB for the context, NCCL and CUB)
BYTES_PER_BODY = 64 + 273   # backend state (2 positions, velocity, acceleration) + the tree's buffers (docs/TREE.md)
FIXED_BYTES = 83 * 2**20    # walk stacks (356 MiB at 1M in the viewer log = 273 MiB per-body + ~83 MiB)
KAPPA = 0.25         # GPU time of the LETs (building those sent, walking those received) per imported LET body,
                     # in local walk bodies: ~5 % overhead at Bonsai's 13M bodies per GPU (>95 % efficiency reported)
N_FILL = 262144      # the walk is not assumed faster per body below 256K bodies per GPU (smallest N measured in docs/TREE.md)
SURFACE_FACTOR = 1.5  # a Morton domain's surface over a cube's of the same volume
D_NEAR = 6.1         # spacings: depth of the layer of remote bodies a boundary group opens (from 2665 bodies/list)
CELLS_PER_BODY = 0.6  # LET cells per LET body (the measured list's 1587 cells / 2665 bodies)
BODY_B, CELL_B = 16, 80   # bytes: a body (x, y, z, m); a cell (com 16, quad 32, cube 16, children 8, range 8; Bonsai: 5 float4)
BTREE_CELLS = 512    # cells of the boundary tree every rank all-gathers (Bonsai's small group tree)
K_NEAR = 26          # near ranks that need a full LET (the neighbours of a cube on a grid)
BOX_BODIES = 2048    # a rank sends its near ranks the boxes (32 B) of its nodes of <= 2048 bodies
MIGRATE = 0.01       # fraction of a rank's bodies that change domain per step
MIGRATE_B = 48       # bytes per migrating body: position + mass, velocity, id and tag
SAMPLE_RATE = 1 / 30  # Bonsai: n/30 key samples in all per step (exchangeSamplesAndUpdateBoundarySFC)


def fit():
    """t_b + t_w = slope of T1; t_b + t_w/2 = slope of T2 less the all-reduce; intercepts = fixed costs."""
    ar = {n: 16 * n / B_NVLINK * 1e3 for n in T2}   # P = 2: 2 (P-1)/P x 16 N = 16 N bytes, ms
    s1 = (T1[N16M] - T1[N1M]) / (N16M - N1M)          # ms per body
    s2 = ((T2[N16M] - ar[N16M]) - (T2[N1M] - ar[N1M])) / (N16M - N1M)
    t_w = 2 * (s1 - s2)
    t_b = s1 - t_w
    c1 = T1[N1M] - s1 * N1M
    c2 = T2[N1M] - ar[N1M] - s2 * N1M
    return t_b * 1e6, t_w * 1e6, c1, c2, ar   # ns, ns, ms, ms, ms


T_B, T_W, C1, CP, AR2 = fit()


def link(P):
    return B_NVLINK if P <= GPUS_PER_NODE else B_NET


def replicated(N, P):
    """ms per step, or None if N does not fit one GPU."""
    if N * BYTES_PER_BODY + FIXED_BYTES > HBM:
        return None
    if P == 1:
        return C1 + (T_B + T_W) * N * 1e-6
    ar = 2 * (P - 1) / P * 16 * N / link(P) + ALPHA * math.log2(P)
    return CP + T_B * N * 1e-6 + T_W * max(N / P, N_FILL) * 1e-6 + ar * 1e3


def let_items(n, P):
    """Bodies and cells a rank imports (and exports) from its near neighbours."""
    surface = 6 * (1 - P ** (-1 / 3)) * SURFACE_FACTOR * n ** (2 / 3)   # spacings^2
    bodies = surface * D_NEAR
    return bodies, CELLS_PER_BODY * bodies


def decomposed(N, P):
    """ms per step and its parts, or None if a rank's share does not fit."""
    n = N / P
    lb, lc = let_items(n, P)
    if (n + lb + lc) * BYTES_PER_BODY + FIXED_BYTES + (P - 1) * BTREE_CELLS * CELL_B > HBM:
        return None
    B = link(P)
    lg = math.log2(P)
    # before the walk, not hidden: key samples all-gathered, bodies that changed domain exchanged
    t_dom = (SAMPLE_RATE * n * 8 / B + ALPHA * lg) + (MIGRATE * n * MIGRATE_B / B + ALPHA * min(K_NEAR, P - 1))
    # GPU work: local tree over n, the local walk, the LET walk, building the LETs sent
    t_build = T_B * n * 1e-9
    t_local = T_W * max(n, N_FILL) * 1e-9
    t_lets = KAPPA * T_W * lb * 1e-9
    # LETs: near neighbours' point to point, everyone's boundary tree all-gathered; hidden behind the local walk
    let_bytes = lb * BODY_B + lc * CELL_B + (P - 1) * BTREE_CELLS * CELL_B
    # before the LETs: who needs a full LET (a P-bit mask from every rank), the near ranks' boxes
    ask_bytes = P * P / 8 + min(K_NEAR, P - 1) * n / BOX_BODIES * 32
    t_let = (let_bytes + ask_bytes) / B + ALPHA * (2 * min(K_NEAR, P - 1) + 2 * lg)
    exposed = max(0.0, t_let - t_local)
    total = CP * 1e-3 + t_dom + t_build + t_local + t_lets + exposed
    return dict(ms=total * 1e3, let_mb=let_bytes / 1e6, let_ms=t_let * 1e3, exposed_ms=exposed * 1e3,
                dom_ms=t_dom * 1e3, n=n, let_bodies=lb, let_cells=lc, lets_ms=t_lets * 1e3,
                build_ms=t_build * 1e3, local_ms=t_local * 1e3)


def fmt(x):
    return "n/a" if x is None else (f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 1000 else f"{x:.0f}")


def main():
    import sys
    global B_NET
    if len(sys.argv) == 3 and sys.argv[1] == "--net-gbs":
        B_NET = float(sys.argv[2]) * 1e9
    print(f"network between machines: {B_NET / 1e9:.0f} GB/s per GPU")
    print(f"fit: t_b = {T_B:.3f} ns/body (replicated part), t_w = {T_W:.3f} ns/body (walk), "
          f"fixed {C1:.3f} ms (1 GPU), {CP:.3f} ms (several); all-reduce at P=2 assumed "
          f"{AR2[N1M]:.3f} ms (1M), {AR2[N16M]:.3f} ms (16M)")
    for N in (N1M, 4194304, N16M):
        print(f"check N={N}: 1 GPU model {replicated(N, 1):.2f} ms, 2 GPUs model {replicated(N, 2):.2f} ms")
    print(f"replicated fits up to N = {(HBM - FIXED_BYTES) / BYTES_PER_BODY / 1e6:.0f}M bodies")
    Ns = [(16 * 2**20, "16M"), (128 * 2**20, "128M"), (2**30, "1G"), (16 * 2**30, "16G")]
    Ps = [2 ** k for k in range(1, 11)]
    print("\n| N | scheme | " + " | ".join(f"P={P}" for P in Ps) + " |")
    print("|---|---|" + "---|" * len(Ps))
    for N, name in Ns:
        one = replicated(N, 1)
        print(f"| {name} (1 GPU: {fmt(one)}) | replicated | " + " | ".join(fmt(replicated(N, P)) for P in Ps) + " |")
        print(f"| | decomposed | " + " | ".join(fmt(d['ms'] if (d := decomposed(N, P)) else None) for P in Ps) + " |")
    print("\nLET per rank and step: MB received / ms on the wire / ms not hidden behind the local walk")
    print("| N | " + " | ".join(f"P={P}" for P in Ps) + " |")
    print("|---|" + "---|" * len(Ps))
    for N, name in Ns:
        cells = []
        for P in Ps:
            d = decomposed(N, P)
            cells.append("n/a" if d is None else f"{d['let_mb']:.1f} / {d['let_ms']:.2f} / {d['exposed_ms']:.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("\nparts of the decomposed step (ms): domain / build / local walk / LET GPU work / exposed LET comm; LET bodies per n")
    for N, name in Ns:
        for P in Ps:
            d = decomposed(N, P)
            if d:
                print(f"  {name} P={P}: {d['dom_ms']:.2f} / {d['build_ms']:.2f} / {d['local_ms']:.2f} / "
                      f"{d['lets_ms']:.2f} / {d['exposed_ms']:.2f}; {d['let_bodies'] / d['n']:.3f}")


if __name__ == "__main__":
    main()
