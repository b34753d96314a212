#!/usr/bin/env python3
"""Instructions per interaction in the j-loops of the ds Hermite force kernel (force_ds), from
`cuobjdump -sass` output (gzipped, as the device runs save it):

    scripts/sass-loop-count.py sass.txt.gz [BLOCK,UNROLL,EXTRAS,IPT]

Each backward branch closes a loop; a loop with n MUFU.RSQ computes n interactions per pass, so its
static instruction count over n is the issue slots per interaction (the per-tile work outside the
innermost loops is not counted)."""
import gzip, re, sys, collections
txt = gzip.open(sys.argv[1], 'rt').read()
funcs = re.split(r'\n\s*Function : ', txt)
for f in funcs[1:]:
    name = f.split('\n', 1)[0].strip()
    m = re.search(r'force_dsILi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)', name)
    if not m: continue
    block, unroll, extras, ipt = map(int, m.groups())
    if len(sys.argv) > 2 and (block, unroll, extras, ipt) != tuple(map(int, sys.argv[2].split(','))): continue
    ins = []
    for line in f.split('\n'):
        mm = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?);', line)
        if mm: ins.append((int(mm.group(1), 16), mm.group(2)))
    addr_index = {a: k for k, (a, _) in enumerate(ins)}
    for k, (a, t) in enumerate(ins):
        b = re.search(r'BRA\s+(?:`\(\.L_x_\d+\)\s*|)(0x[0-9a-f]+)', t)
        if not b: continue
        tgt = int(b.group(1), 16)
        if tgt >= a or tgt not in addr_index: continue
        body = [x[1] for x in ins[addr_index[tgt]:k + 1]]
        ops = collections.Counter(re.sub(r'^@!?U?P\w+\s+', '', s).split()[0].split('.')[0] for s in body)
        mufu = ops.get('MUFU', 0)
        if mufu == 0: continue
        print(f"block {block} unroll {unroll} extras {extras} ipt {ipt}: loop {len(body)} instr, {mufu} MUFU -> {len(body)/mufu:.2f} per interaction; " +
              ", ".join(f"{o} {c/mufu:.2f}" for o, c in ops.most_common(12)))
