"""Counts for a `fsfit bench --quick` result (fsfit.bench/1 JSON): figures
with CV <= 10 %, figures resting on a run under 0.1 s (runs not set aside)
and whether they are flagged, noisy figures flagged, runs set aside, and the
median share of a run its tasks waited for a CPU; figures whose runs were
made of several rounds, runs set aside as too short, and runs before which
the page cache was dropped to make room. Used for BENCHMARKS.md."""
import json,sys,statistics
for f in sys.argv[1:]:
    r=json.load(open(f))
    figs=[w for c in r['results'] for w in c['workloads']]
    n=len(figs)
    ok=sum(1 for w in figs if w['cv_pct']<=10)
    used=lambda w:[x for x in w['runs'] if not x.get('set_aside')]
    sr=sum(1 for w in figs for x in used(w) if x['seconds']<0.1)
    sf=sum(1 for w in figs if any(x['seconds']<0.1 for x in used(w)))
    noisy=[w for w in figs if w['cv_pct']>10]
    fl=sum(1 for w in noisy if 'high-cv' in w['flags'])
    sfl=sum(1 for w in figs if any(x['seconds']<0.1 for x in used(w)) and 'short-run' in w['flags'])
    runs=[x for w in figs for x in w['runs']]
    aside=sum(1 for x in runs if x.get('set_aside'))
    short=sum(1 for x in runs if x.get('set_aside','').startswith('too short'))
    rounds=sum(1 for w in figs if w.get('rounds'))
    room=sum(1 for x in runs if x.get('made_room'))
    sh=[x['cpu_wait_s']/x['seconds'] for x in runs if 'cpu_wait_s' in x]
    ps=[x['cpu_pressure_s']/x['seconds'] for x in runs if 'cpu_pressure_s' in x]
    print(f"{f}: {n} figures; CV<=10%: {ok} ({100*ok/n:.0f} %); figures resting on a run <0.1 s: {sf} ({sr} runs, {sfl} flagged); noisy {len(noisy)}, flagged {fl}; runs {len(runs)}, set aside {aside} ({short} as too short)"
      + f"; figures in rounds {rounds}; runs after dropping the cache {room}"
      + (f"; own wait share median {100*statistics.median(sh):.1f} %, PSI some {100*statistics.median(ps):.0f} %" if sh else ""))
