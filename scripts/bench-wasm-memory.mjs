// The engine's wasm memory with a big gallery loaded, under node (issue 15.1: JS heap + wasm
// memory ≤ 200 MB at 1,000,000 items). Loads a waterfall of N items in 100 sections the way
// the page does (Op.controllerCreate), then — the baseline in the same run, what the page did
// before — sends every item's title to the engine (Op.controllerTitles, 2,000 per call).
// Prints wasm memory and the allocator's figures (engine_heap_stats) after each step.
//
//   scripts/build-wasm.sh && node scripts/bench-wasm-memory.mjs [items=1000000] [engine.wasm]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const root = fileURLToPath(new URL('..', import.meta.url));
await import(root + 'Tests/web/built-protocol.mjs');
const { Engine } = await import(root + 'Web/js/engine.js');
const { Op, LayoutKind, ReorderMode, Cadence, Snapping, TitleKind } = await import(root + 'Web/js/protocol.js');

const N = Number(process.argv[2] ?? 1_000_000), S = 100;
const engine = await Engine.load(readFileSync(process.argv[3] ?? root + '.build-wasm/engine.wasm'));
const MB = (b) => (b / 1048576).toFixed(1);
function report(step, ms) {
  const s = new Float64Array(engine.memory.buffer, engine.exports.engine_heap_stats(), 3);
  console.log(`| ${step} | ${ms.toFixed(0)} ms | ${MB(engine.memory.buffer.byteLength)} MB | ${MB(s[1])} MB | ${MB(s[2])} MB |`);
}

// The arrangement as controller.js encodes it: sections (id, count, ids, versions), aspects, configuration.
const per = Math.ceil(N / S);
const input = new Float64Array(1 + 2 * S + 3 * N + 32);
let k = 0, id = 1;
input[k++] = S;
for (let s = 0; s < S; s++) {
  const count = Math.max(0, Math.min(per, N - s * per));
  input[k++] = s + 1; input[k++] = count;
  for (let i = 0; i < count; i++) input[k++] = id + i;
  for (let i = 0; i < count; i++) input[k++] = 1;
  id += count;
}
for (let i = 0; i < N; i++) input[k++] = 0.5 + ((i * 7919) % 100) / 40; // aspects 0.5–3
for (const x of [LayoutKind.waterfall, 4, 0, 1200, 44, 8, 8, 8, 8, 6, 6, 0, 0.5, 1200, 800, ReorderMode.insert, Cadence.fast, Snapping.none]) input[k++] = x;

console.log(`${N} items in ${S} sections (waterfall, 4 columns)\n`);
console.log('| step | time | wasm memory | allocated | free in the allocator |');
console.log('| --- | ---: | ---: | ---: | ---: |');
let t = performance.now();
const answer = engine.call(Op.controllerCreate, input.subarray(0, k));
if (answer[0] !== 0) throw new Error(`controllerCreate refused (${answer[0]})`);
report('gallery loaded (what the page does now)', performance.now() - t);
const h = answer[1];
const utf8 = new TextEncoder();
t = performance.now();
for (let start = 1; start <= N; start += 2000) {
  const batch = [h, 0];
  for (let i = start; i < Math.min(N + 1, start + 2000); i++) {
    const b = utf8.encode(`IMG_${20000000 + i}.jpg`);
    batch.push(TitleKind.item, i, b.length, ...b);
    batch[1]++;
  }
  engine.call(Op.controllerTitles, batch);
}
report('+ every item title sent to the engine (the page before)', performance.now() - t);
