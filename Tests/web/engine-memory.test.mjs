// The engine's memory made ready ahead of a big load (Engine.reserve and touch, Controller.warmLoad):
// the allocator in engine.wasm (Wasm/runtime.c) takes memory the page grew before growing more, and
// an input written straight into wasm memory (Engine.callWritten) loads the same gallery as a copied one.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';
import './built-protocol.mjs';
const { Engine } = await import('../../Web/js/engine.js');
const { Op, LayoutKind } = await import('../../Web/js/protocol.js');

const bytes = readFileSync(new URL('../../.build-wasm/engine.wasm', import.meta.url));

// controllerCreate's input for `n` items in `sections` sections (ids from 1, versions 0), waterfall.
function gallery(n, sections) {
  const per = Math.ceil(n / sections);
  const out = [sections];
  const aspects = [];
  for (let s = 0, id = 1; s < sections; s++) {
    const count = Math.max(0, Math.min(per, n - s * per));
    out.push(s + 1, count);
    for (let i = 0; i < count; i++) out.push(id++);
    for (let i = 0; i < count; i++) out.push(i % 3);
    for (let i = 0; i < count; i++) aspects.push(0.5 + ((id + i) % 7) / 4);
  }
  return [...out, ...aspects, LayoutKind.waterfall, 4, 0, 1200, 44, 8, 8, 8, 8, 6, 6, 0, 0.5, 1200, 800, 0, 1, 0];
}

test('a load fits in the memory the page grew for it, and grows none itself', async () => {
  const engine = await Engine.load(bytes);
  const input = gallery(300_000, 30);
  const warm = engine.call(Op.controllerCreate, gallery(100, 2)); // the allocator's heap starts
  engine.call(Op.controllerDestroy, [warm[1]]);
  const range = engine.reserve(300_000 * 200); // more than the load takes (~175 B an item at 300k)
  assert.ok(range, 'the memory grew');
  const grown = engine.memory.buffer.byteLength;
  assert.equal(range.end, grown);
  let slices = 0;
  while (engine.touch(range, 1 << 20)) slices++;
  assert.ok(slices > 5);
  const answer = engine.callWritten(Op.controllerCreate, (into) => { const view = into(input.length); view.set(input); return view; });
  assert.equal(answer[0], 0);
  // Before the allocator took the page's memory, it grew past it: 16 MB steps on top of the grown part.
  assert.equal(engine.memory.buffer.byteLength, grown, 'the load grew wasm memory beyond the reserve');
  assert.equal(engine.reserve(1 << 20), null, 'nothing to grow while that much is free');
});

test('an input written in place loads the same gallery as one copied in', async () => {
  const a = await Engine.load(bytes), b = await Engine.load(bytes);
  const input = gallery(20_000, 7);
  const ha = a.call(Op.controllerCreate, input)[1];
  const hb = b.callWritten(Op.controllerCreate, (into) => { const view = into(input.length); view.set(input); return view; })[1];
  for (const y of [0, 5_000, 150_000]) {
    const ra = a.call(Op.controllerRender, [ha, 0, y, 1200, 800]);
    const rb = b.call(Op.controllerRender, [hb, 0, y, 1200, 800]);
    assert.ok(ra.length > 20);
    assert.deepEqual(Array.from(rb), Array.from(ra));
  }
});
