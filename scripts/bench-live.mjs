// Following the server's changes in engine.wasm at 100k items (docs/engine-bridge.md,
// ops 70–72): another window's one-item move applied in place (op 70), our own batch coming
// back checked (op 71), beside what the page did before — encoding the whole arrangement and
// handing it over (op 45: read, diff, full layout). Waterfall, 4 columns, container 1200.
//
//   scripts/build-wasm.sh && node scripts/bench-live.mjs [.build-wasm/engine.wasm]
import { readFileSync } from 'node:fs';
import '../Tests/web/built-protocol.mjs';
import { rng } from '../Tests/wasm/random.mjs';
const { Engine } = await import('../Web/js/engine.js');
const { Op, LayoutKind: Kind } = await import('../Web/js/protocol.js');

const engine = await Engine.load(readFileSync(process.argv[2] ?? '.build-wasm/engine.wasm'));
const r = rng(5);
const N = 100_000, ROUNDS = 15;
function encode(sections) {
  const out = [sections.length];
  for (const s of sections) {
    out.push(s.id, s.items.length);
    for (const i of s.items) out.push(i.id);
    for (const i of s.items) out.push(i.version);
  }
  return out;
}
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const fmt = (ms) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`);
console.log('| arrangement | another window\'s move: op 70 median / max | our batch back: op 71 median | whole arrangement (encode + op 45) median / max |');
console.log('| --- | ---: | ---: | ---: |');
for (const sections of [1, 100]) {
  const model = Array.from({ length: sections }, (_, s) => ({ id: 1000 + s, items: Array.from({ length: N / sections }, (_, i) => ({ id: s * N + i + 1, version: 0 })) }));
  const aspects = Array.from({ length: N }, () => 0.3 + 2.7 * r.next());
  const aspectOf = new Map(model.flatMap((x) => x.items).map((it, k) => [it.id, aspects[k]]));
  const h = engine.call(Op.controllerCreate, [...encode(model), ...aspects, Kind.waterfall, 4, 0, 1200, 44, 8, 8, 8, 8, 6, 6, 0, 0.5, 1200, 800, 0, 1, 0])[1];
  const times = { live: [], check: [], whole: [] };
  for (let k = 0; k < ROUNDS; k++) {
    const s = r.int(0, sections - 1), items = model[s].items;
    const from = r.int(0, items.length - 1), to = r.int(0, items.length - 1);
    const [moved] = items.splice(from, 1);
    items.splice(to, 0, moved);
    const counts = model.map((x) => x.items.length);
    // One stage: [0 section deletes, 0 inserts, 0 section moves, 0 item deletes, 0 item inserts, 1 move, 0 reloads, counts].
    const stage = [1, 0, 0, 0, 0, 0, 1, s, from, s, to, 0, counts.length, ...counts];
    let t0 = performance.now();
    const a = engine.call(Op.controllerLiveChanges, [h, ...stage, 0, 1, moved.id]);
    times.live.push(performance.now() - t0);
    if (a[0] !== 0) throw new Error(`op 70 refused the move (${a[0]})`);
    t0 = performance.now();
    const m = engine.call(Op.controllerModelMatches, [h, counts.length, ...counts, 1, moved.id, s, to, 0, 0]);
    times.check.push(performance.now() - t0);
    if (m[1] !== 1) throw new Error('op 71: the engine does not show the move');
    // The old way, as the page did it: the whole arrangement and every item's aspect.
    t0 = performance.now();
    const pairs = [];
    let n = 0;
    for (const x of model) for (const it of x.items) { pairs.push(it.id, aspectOf.get(it.id)); n++; }
    const w = engine.call(Op.controllerLiveSnapshot, [h, ...encode(model), n, ...pairs]);
    times.whole.push(performance.now() - t0);
    if (w[0] !== 0) throw new Error(`op 45 refused (${w[0]})`);
  }
  console.log(`| 100k items in ${sections} section${sections > 1 ? 's' : ''} | ${fmt(median(times.live))} / ${fmt(Math.max(...times.live))} | ${fmt(median(times.check))} | ${fmt(median(times.whole))} / ${fmt(Math.max(...times.whole))} |`);
  engine.call(Op.controllerDestroy, [h]);
}
