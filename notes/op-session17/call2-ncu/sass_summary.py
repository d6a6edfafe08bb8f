import csv,sys
def load(f):
    rows=[r for r in csv.reader(open(f)) if r and not r[0].startswith('==')]
    i=[k for k,r in enumerate(rows) if r[0]=='Address'][0]
    hdr=rows[i]
    out=[]
    for r in rows[i+1:]:
        d=dict(zip(hdr,r))
        out.append(d)
    return hdr,out
hdr,rows=load(sys.argv[1])
stalls=[h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
tot={s:0 for s in stalls}
n_exec=0; samples=0
from collections import Counter
op_exec=Counter()
for d in rows:
    ex=int(d['Instructions Executed'] or 0); n_exec+=ex
    samples+=int(d['Warp Stall Sampling (All Samples)'] or 0)
    for s in stalls: tot[s]+=int(d[s] or 0)
    opc=d['Source'].strip().split()
    if opc:
        o=opc[0]
        if o.startswith('@'): o=opc[1]
        op_exec[o.split('.')[0]]+=ex
print('instructions executed (warp-level)',n_exec,'samples',samples)
for s,v in sorted(tot.items(),key=lambda x:-x[1])[:12]: print(f'  {s:28s}{v:8d} {100*v/samples:5.1f}%')
print('opcodes by executed count:')
for o,v in op_exec.most_common(30): print(f'  {o:12s}{v:10d} {100*v/n_exec:5.1f}%')
