// A million-item gallery reloaded in parts in engine.wasm under node (issue 15.1, a reload at 1M):
// the page's first load (its memory reserved as Controller.warmLoad does, the arrangement written
// in place), then the whole arrangement handed over again in parts as the page does after a
// reload (Op.controllerLiveReplaceBegin, …Append of ~16k items, …Finish), twice. Prints each
// call's time (the begin, the longest part, the finish) and wasm memory
// with the allocator's own counts after each step. Several engine.wasm files compare in one run:
//   node scripts/bench-reload.mjs [--items N] [--layout waterfall|grid] NAME=ENGINE.wasm ...
import { readFileSync } from 'node:fs';
import '../Tests/web/built-protocol.mjs';
const { Engine } = await import('../Web/js/engine.js');
const { Op, LayoutKind } = await import('../Web/js/protocol.js');

const args = process.argv.slice(2);
let N = 1_000_000, kind = 'waterfall';
const engines = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--items') N = Number(args[++i]);
  else if (args[i] === '--layout') kind = args[++i];
  else engines.push(args[i].split('='));
}
if (!engines.length) engines.push(['new', '.build-wasm/engine.wasm']);
const S = 100, per = N / S;
const config = [...(kind === 'grid' ? [LayoutKind.grid, 4, 1] : [LayoutKind.waterfall, 4, 0]), 1200, 44, 8, 8, 8, 8, 6, 6, 0, 0.5, 1200, 800, 0, 1, 0];
let seed = 7;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const aspects = Float64Array.from({ length: N }, () => 0.5 + rand() * 1.5);
// The reload's arrangement: the same ids, 20,000 of them moved to random places.
const order = Float64Array.from({ length: N }, (_, i) => i + 1);
for (let k = 0; k < 20000; k++) { const a = Math.floor(rand() * N), b = Math.floor(rand() * N); const t = order[a]; order[a] = order[b]; order[b] = t; }
const MB = (b) => (b / 1048576).toFixed(1);

for (const [name, wasm] of engines) {
  const engine = await Engine.load(readFileSync(wasm));
  const stats = () => { const s = new Float64Array(engine.memory.buffer, engine.exports.engine_heap_stats(), 3); let blocks = '';
    if (process.env.BLOCKS && engine.exports.engine_heap_blocks) { const b = new Float64Array(engine.memory.buffer, engine.exports.engine_heap_blocks(), 257); blocks = ' big free: ' + Array.from({ length: b[0] }, (_, k) => `${MB(b[1 + 2 * k])}+${MB(b[2 + 2 * k])}`).join(' '); }
    return `wasm ${MB(engine.memory.buffer.byteLength)} MB (heap ${MB(s[0])}, live ${MB(s[1])}, free ${MB(s[2])})${blocks}`; };
  const bytes = N * (16 + (kind === 'waterfall' ? 124 : 116)); // Controller's loadBytes
  engine.reserve(bytes);
  const create = engine.callWritten(Op.controllerCreate, (into) => {
    const out = into(1 + 2 * S + 3 * N + N + config.length);
    let k = 0; out[k++] = S;
    for (let s = 0; s < S; s++) { out[k++] = s + 1; out[k++] = per; for (let i = 0; i < per; i++) out[k++] = s * per + i + 1; for (let i = 0; i < per; i++) out[k++] = 0; }
    out.set(aspects, k); out.set(config, k + N);
    return out;
  });
  if (create[0] !== 0) throw new Error(`create: status ${create[0]}`);
  const handle = create[1];
  console.log(`${name} ${kind} ${N}: first load: ${stats()}`);
  for (let round = 1; round <= 3; round++) {
    const times = { begin: 0, part: 0, finish: [] };
    let t = performance.now();
    engine.call(Op.controllerLiveReplaceBegin, [handle, N, S]);
    times.begin = performance.now() - t;
    for (let at = 0; at < N;) {
      const input = [handle, 0];
      for (let left = 16384; at < N && left > 0; input[1]++) {
        const s = Math.floor(at / per), m = Math.min(left, (s + 1) * per - at);
        input.push(s + 1, m);
        for (let i = at; i < at + m; i++) input.push(order[i]);
        for (let i = at; i < at + m; i++) input.push(0);
        for (let i = at; i < at + m; i++) input.push(aspects[order[i] - 1]);
        at += m; left -= m;
      }
      t = performance.now();
      const a = engine.call(Op.controllerLiveReplaceAppend, input);
      times.part = Math.max(times.part, performance.now() - t);
      if (a[0] !== 0) throw new Error(`append: status ${a[0]}`);
    }
    t = performance.now();
    const done = engine.call(Op.controllerLiveReplaceFinish, [handle]);
    times.finish.push(performance.now() - t);
    if (done[0] !== 0) throw new Error(`finish: status ${done[0]}`);
    const r = engine.call(Op.controllerRender, [handle, 0, 0, 1200, 800]);
    if (process.env.LAYOUT) { // the layout alone: a width change lays everything out again
      for (const w of [1199, 1200]) {
        const c = [...config]; c[3] = w; t = performance.now();
        engine.call(Op.controllerConfigure, [handle, ...c, 0]);
        console.log(`  layout alone (configure to ${w}): ${(performance.now() - t).toFixed(1)} ms`);
      }
    }
    console.log(`${name} reload ${round}: begin ${times.begin.toFixed(1)} ms, longest part ${times.part.toFixed(1)} ms, finish ${times.finish.map((x) => x.toFixed(1)).join(' + ')} ms; ${stats()}; render ${r.length}`);
  }
}
