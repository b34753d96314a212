#!/usr/bin/env python3
"""Same-bank operand pairs in the hottest j-loop (the unit-mass loop: MUFU.RSQ with at most two FMULs
each) of `cuobjdump -sass` files, counted for a register file of 2 and of 4 banks (bank = register
number mod banks); an operand that the previous instruction marked .reuse in the same slot comes
from the reuse cache and is not counted. Per interaction (per MUFU.RSQ).

    scripts/kernel-lab/sass-bank-pairs.py lab-*.sass"""
import re, sys, csv, collections
def parse(lines):
    ins = []
    for line in lines:
        mm = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;', line)
        if mm: ins.append((int(mm.group(1), 16), mm.group(2)))
    return ins
def hot_loop(ins):
    idx = {a: k for k, (a, _) in enumerate(ins)}
    best = None
    for k, (a, t) in enumerate(ins):
        b = re.search(r'BRA\s+(?:`\(\.L_x_\d+\)\s*|)(0x[0-9a-f]+)', t)
        if not b: continue
        tgt = int(b.group(1), 16)
        if tgt >= a or tgt not in idx: continue
        body = ins[idx[tgt]:k + 1]
        ops = collections.Counter(re.sub(r'^@!?U?P\w+\s+', '', s).split()[0].split('.')[0] for _, s in body)
        if ops['MUFU'] >= 8 and ops['FMUL'] <= 2 * ops['MUFU'] + 1:
            if best is None or len(body) > len(best): best = body
    return best
def operands(s):
    s = re.sub(r'^@!?U?P\w+\s+', '', s)
    parts = s.split(None, 1)
    op = parts[0]
    if len(parts) < 2: return op, None, []
    args = [x.strip() for x in parts[1].split(',')]
    return op, args[0], args[1:]
def conflicts(body, nbanks):
    total = 0; per = []
    prev_reuse = {}
    for a, s in body:
        op, dst, srcs = operands(s)
        regs = []
        reuse_now = {}
        for slot, x in enumerate(srcs):
            m = re.match(r'-?\|?R(\d+)(\.reuse)?', x)
            if not m: continue
            r = int(m.group(1))
            if m.group(2): reuse_now[slot] = r
            if prev_reuse.get(slot) == r: continue   # from the operand reuse cache
            regs.append(r)
        prev_reuse = reuse_now
        uniq = set(regs)
        c = collections.Counter(r % nbanks for r in uniq)
        n = max(c.values()) - 1 if c else 0
        total += n; per.append(n)
    return total, per
if __name__ == '__main__':
    for f in sys.argv[1:]:
        body = hot_loop(parse(open(f)))
        if not body: print(f, 'no loop'); continue
        mufu = sum(1 for _, s in body if 'MUFU' in s)
        c2, _ = conflicts(body, 2); c4, _ = conflicts(body, 4)
        print('%-40s loop %4d instr %3d MUFU %.2f/int  conflicts/int: 2 banks %.2f  4 banks %.2f' % (f.split('/')[-1], len(body), mufu, len(body)/mufu, c2/mufu, c4/mufu))
