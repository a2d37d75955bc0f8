// Seeded generator shared by the wasm tests and benchmarks (mulberry32): the same seed
// gives the same inputs on every run.
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)), // inclusive
    range: (lo, hi) => lo + next() * (hi - lo),
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    shuffle(xs) {
      for (let i = xs.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [xs[i], xs[j]] = [xs[j], xs[i]];
      }
      return xs;
    },
  };
}

/// Input of Op.layoutCreate for a kind code and a random configuration.
export function layoutConfig(r, kind) {
  const kindArgs = [
    [r.int(1, 8), r.pick([1, 1, 0.75, 1.5])],           // grid: columns, aspect
    [r.range(40, 240), r.range(40, 240)],                // flow: item width, height
    [r.int(1, 8), 0],                                    // waterfall: columns
    [r.range(60, 260), 0],                               // justified: row height
  ][kind];
  const inset = () => r.pick([0, 0, 4, 8, 16.5]);
  return [kind, ...kindArgs, r.range(200, 1400), r.pick([0, 0, 32, 44]),
          inset(), inset(), inset(), inset(), r.pick([0, 2, 4, 7.25]), r.pick([0, 2, 4, 9]),
          r.pick([0, 1]), r.pick([0.5, 0.5, 0.3])];
}

/// Random aspect ratios, with the occasional degenerate value the layout must sanitise.
export function aspects(r, n) {
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const d = r.next();
    out[i] = d < 0.01 ? r.pick([0, -1, NaN, Infinity, 1e-9, 1e9]) : Math.exp(r.range(Math.log(0.3), Math.log(3)));
  }
  return out;
}

/// A flat snapshot for Op.diff: [sectionCount, per section: id, count, ids…, versions…].
export function encodeSnapshot(sections) {
  const out = [sections.length];
  for (const s of sections) {
    out.push(s.id, s.items.length, ...s.items.map((i) => i.id), ...s.items.map((i) => i.version));
  }
  return out;
}
