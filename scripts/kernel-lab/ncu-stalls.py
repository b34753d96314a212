#!/usr/bin/env python3
"""Warp-stall samples of an ncu source page (`ncu --import R --page source --csv --print-source sass`):
the share of each stall reason over all samples and over the samples taken in cycles in which the
scheduler issued nothing ("Not Issued"), and the instructions that carry them.

    scripts/kernel-lab/ncu-stalls.py source.csv"""
import csv, collections, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr, data = rows[1], [r for r in rows[2:] if len(r) >= len(rows[1])]
ix = {h: i for i, h in enumerate(hdr)}
for title, pick in (('all samples', lambda h: 'Not Issued' not in h), ('samples of cycles with no issue', lambda h: 'Not Issued' in h)):
    stalls = [h for h in hdr if h.startswith('stall_') and pick(h)]
    tot, byop = collections.Counter(), collections.defaultdict(collections.Counter)
    for r in data:
        src = r[ix['Source']].split()
        op = src[1] if src and src[0].startswith('@') else (src[0] if src else '')
        for s in stalls:
            v = int(r[ix[s]] or 0)
            tot[s] += v
            byop[op][s] += v
    total = sum(tot.values())
    print(f'{title}: {total}')
    for s, v in tot.most_common(8):
        print(f'  {s.replace(" (Not Issued)", ""):28s} {100 * v / total:6.2f} %')
    for op in sorted(byop, key=lambda o: -sum(byop[o].values()))[:6]:
        c, n = byop[op], sum(byop[op].values())
        print(f'    {op:18s} {n:8d}  ' + ' '.join(f'{s[6:].replace(" (Not Issued)", "")} {100 * v / n:.1f} %' for s, v in c.most_common(4)))
