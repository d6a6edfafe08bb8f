import csv,sys
rows=[r for r in csv.reader(open(sys.argv[1])) if r and not r[0].startswith('==')]
i=[k for k,r in enumerate(rows) if r[0]=='Address'][0]
hdr=rows[i]
stalls=[h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
base=None
for r in rows[i+1:]:
    d=dict(zip(hdr,r))
    a=int(d['Address'],16); base=base or a
    ex=int(d['Instructions Executed'] or 0); smp=int(d['Warp Stall Sampling (All Samples)'] or 0)
    top=sorted(((int(d[s] or 0),s[6:]) for s in stalls),reverse=True)[:2]
    tops=' '.join(f'{n}:{v}' for v,n in top if v)
    print(f"{a-base:05x} {ex:8d} {smp:5d} {d['Source'].strip()[:70]:70s} {tops}")
