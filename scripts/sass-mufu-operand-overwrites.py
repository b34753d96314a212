#!/usr/bin/env python3
"""Device runs 49-50 (docs/HERMITE.md, "The ds kernel, version 4"): per force_ds<256,U,0,4> j-loop, its
instructions, MUFUs, and the writes to a register a MUFU.RSQ read within the 12 instructions before.

    scripts/sass-mufu-operand-overwrites.py sass.txt.gz"""


import gzip, re, sys, collections
txt = gzip.open(sys.argv[1], 'rt').read()
for f in re.split(r'\n\s*Function : ', txt)[1:]:
    name = f.split('\n', 1)[0].strip()
    m = re.search(r'force_dsILi256ELi(\d+)ELi0ELi4E', name)
    if not m: continue
    ins = []
    for line in f.split('\n'):
        mm = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?);', line)
        if mm: ins.append((int(mm.group(1), 16), re.sub(r'\.reuse', '', mm.group(2)).strip()))
    idx = {a: k for k, (a, _) in enumerate(ins)}
    for k, (a, t) in enumerate(ins):
        b = re.search(r'BRA\s+(?:`\(\.L_x_\d+\)\s*|)(0x[0-9a-f]+)', t)
        if not b or int(b.group(1), 16) >= a or int(b.group(1), 16) not in idx: continue
        body = [x[1] for x in ins[idx[int(b.group(1), 16)]:k + 1]]
        mufu = sum(1 for s in body if s.split()[0].startswith('MUFU'))
        if mufu == 0: continue
        war = 0
        for i, s in enumerate(body):
            parts = re.sub(r'^@!?U?P\w+\s+', '', s).split(None, 1)
            if len(parts) < 2: continue
            d = re.match(r'R(\d+)', parts[1])
            if not d: continue
            for s2 in body[max(0, i - 12):i]:
                p2 = s2.split(None, 1)
                if p2[0].startswith('MUFU') and re.search(r',\s*R%s\b' % d.group(1), p2[1]): war += 1; break
        print('U%s loop: %d instr, %d MUFU, %.2f per interaction, MUFU-source overwrites within 12: %d' % (m.group(1), len(body), mufu, len(body) / mufu, war))
