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
  assert.ok(range.end <= grown && range.end > grown - 65536, 'the range ends where the asked bytes do');
  let slices = 0;
  while (engine.touch(range, 1 << 20)) slices++;
  assert.ok(slices > 5);
  const answer = engine.callWritten(Op.controllerCreate, (into) => { const view = into(input.length); view.set(input); return view; });
  assert.equal(answer[0], 0);
  // Before the allocator took the page's memory, it grew past it: 16 MB steps on top of the grown part.
  assert.equal(engine.memory.buffer.byteLength, grown, 'the load grew wasm memory beyond the reserve');
  const left = engine.reserve(1 << 20);
  assert.equal(engine.memory.buffer.byteLength, grown, 'nothing to grow while that much is free');
  assert.ok(left && left.end - left.at <= (1 << 20) + 4096, 'what is above the heap top, at most what was asked');
});

test('memory grown before and not used yet is touched, and a load made between two touches keeps what it wrote', async () => {
  const engine = await Engine.load(bytes), reference = await Engine.load(bytes);
  const warm = engine.call(Op.controllerCreate, gallery(100, 2));
  engine.call(Op.controllerDestroy, [warm[1]]);
  const top = () => new Float64Array(engine.memory.buffer, engine.exports.engine_heap_stats(), 4)[3];
  const before = engine.memory.buffer.byteLength;
  const range = engine.reserve(4 << 20); // the allocator's first 16 MB step holds it: nothing grows
  assert.equal(engine.memory.buffer.byteLength, before, 'memory free above the top is not grown again');
  assert.ok(range && range.at <= top() && range.end - range.at >= 4 << 20, 'the range starts at the heap top');
  engine.touch(range, 4096 * 3);
  // A load between two slices takes pages of the range; the slices after it write each page's own byte.
  const input = gallery(20_000, 5);
  const h = engine.call(Op.controllerCreate, input)[1], hr = reference.call(Op.controllerCreate, input)[1];
  assert.ok(top() > range.at + 4096 * 16, 'the load took pages the touch has not reached yet');
  const from = range.at, held = new Uint8Array(engine.memory.buffer).slice(from, top());
  while (engine.touch(range, 1 << 16));
  assert.ok(Buffer.from(new Uint8Array(engine.memory.buffer).slice(from, from + held.length)).equals(Buffer.from(held)),
    'the touch left the load\'s memory as it was');
  for (const y of [0, 9_000, 40_000]) {
    assert.deepEqual(Array.from(engine.call(Op.controllerRender, [h, 0, y, 1200, 800])),
      Array.from(reference.call(Op.controllerRender, [hr, 0, y, 1200, 800])));
  }
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

// The allocator's counts (Wasm/runtime.c engine_heap_stats): [heap in use, bytes handed out, bytes free on its lists].
const heap = (engine) => Array.from(new Float64Array(engine.memory.buffer, engine.exports.engine_heap_stats(), 3));
const MiB = 1 << 20;

test('a big input is not kept after its call', async () => {
  const engine = await Engine.load(bytes);
  engine.call(Op.controllerDestroy, [0]); // the allocator's heap and the answer's buffer start
  const live = heap(engine)[1];
  // A million-item load's input is ~24 MB; kept, it sat beside the gallery for good (and a
  // reload's tables could not use it).
  const answer = engine.callWritten(Op.controllerDestroy, (into) => into(3_000_000).fill(0));
  assert.notEqual(answer[0], 0, 'no controller 0: refused');
  assert.ok(heap(engine)[1] - live < MiB, `still held after the call: ${((heap(engine)[1] - live) / MiB).toFixed(1)} MiB`);
});

test('memory freed in big blocks is split for smaller ones and merged again', async () => {
  const engine = await Engine.load(bytes);
  const { malloc, free } = engine.exports;
  const big = malloc(24 * MiB), fence = malloc(64);
  free(big);
  const top = heap(engine)[0];
  // A freed 24 MiB block serves two 8 MiB blocks and fifty of 100 KiB (a reload's
  // sections) without the heap growing: before, the first block took all 24 MiB and the
  // rest grew the heap (wasm memory never shrinks).
  const parts = [malloc(8 * MiB), malloc(8 * MiB)];
  for (let i = 0; i < 50; i++) parts.push(malloc(100 << 10));
  assert.equal(heap(engine)[0], top, 'the heap grew');
  for (const p of parts) free(p);
  // Given back, the pieces are one block again: 24 MiB fits where they were.
  const again = malloc(24 * MiB);
  assert.equal(heap(engine)[0], top, 'the freed pieces were not merged');
  assert.ok(again <= big, 'the merged block is where the first was');
  free(again); free(fence);
});

// The page's reload of a big gallery (Controller.liveReplacement): begin, the items in parts, finish.
function reload(engine, handle, sections, ids, aspects) {
  engine.call(Op.controllerLiveReplaceBegin, [handle, ids.length, sections.length]);
  const per = ids.length / sections.length;
  for (let at = 0; at < ids.length;) {
    const input = [handle, 0];
    for (let left = 16384; at < ids.length && left > 0; input[1]++) {
      const s = Math.floor(at / per), m = Math.min(left, (s + 1) * per - at);
      input.push(s + 1, m);
      for (let i = at; i < at + m; i++) input.push(ids[i]);
      for (let i = at; i < at + m; i++) input.push(0);
      for (let i = at; i < at + m; i++) input.push(aspects[ids[i] - 1]);
      at += m; left -= m;
    }
    assert.equal(engine.call(Op.controllerLiveReplaceAppend, input)[0], 0);
  }
  assert.equal(engine.call(Op.controllerLiveReplaceFinish, [handle])[0], 0);
}

test('a million-item gallery reloaded in parts stays within issue 15\'s memory', async () => {
  // Issue 15.1: JS heap + wasm memory <= 200 MB at 1M items. The reload builds the new tables
  // beside the old ones; with the old allocator the freed blocks fitted none of the new sizes
  // and wasm memory went from ~166 to ~218 MB (the page's: 158.8 → 221.2 MB).
  const n = 1_000_000, sections = 100, per = n / sections;
  const engine = await Engine.load(bytes);
  const tail = [LayoutKind.waterfall, 4, 0, 1200, 44, 8, 8, 8, 8, 6, 6, 0, 0.5, 1200, 800, 0, 1, 0];
  const aspects = Float64Array.from({ length: n }, (_, i) => 0.5 + (i % 13) / 8);
  engine.reserve(16 * 2 ** 21 + n * 124); // as Controller.warmLoad does for 1M items in a waterfall
  const answer = engine.callWritten(Op.controllerCreate, (into) => {
    const out = into(1 + 2 * sections + 3 * n + tail.length);
    let k = 0;
    out[k++] = sections;
    for (let s = 0; s < sections; s++) {
      out[k++] = s + 1; out[k++] = per;
      for (let i = 0; i < per; i++) out[k++] = s * per + i + 1;
      out.fill(0, k, k + per); k += per;
    }
    out.set(aspects, k); out.set(tail, k + n);
    return out;
  });
  assert.equal(answer[0], 0);
  const loaded = engine.memory.buffer.byteLength;
  // The same items, 20,000 of them swapped with others (a window back after many moves).
  const ids = Float64Array.from({ length: n }, (_, i) => i + 1);
  for (let k = 0, x = 7; k < 20_000; k++) {
    x = (x * 1103515245 + 12345) % 2147483648; const a = x % n;
    x = (x * 1103515245 + 12345) % 2147483648; const b = x % n;
    [ids[a], ids[b]] = [ids[b], ids[a]];
  }
  reload(engine, answer[1], Array.from({ length: sections }), ids, aspects);
  const first = engine.memory.buffer.byteLength;
  reload(engine, answer[1], Array.from({ length: sections }), ids.reverse(), aspects);
  const second = engine.memory.buffer.byteLength;
  reload(engine, answer[1], Array.from({ length: sections }), ids.reverse(), aspects);
  const third = engine.memory.buffer.byteLength;
  const render = engine.call(Op.controllerRender, [answer[1], 0, 0, 1200, 800]);
  assert.ok(render.length > 20);
  // Wasm memory never shrinks: the reloads may grow it once (~17 MiB; since the id table is dense,
  // on the second reload rather than the first: 151.3 → 151.3 → 168.8 MiB), never again after that.
  for (const [name, size] of [['first', first], ['second', second]]) {
    assert.ok(size <= 190 * MiB, `wasm memory after the ${name} reload: ${(size / MiB).toFixed(1)} MiB (after the load ${(loaded / MiB).toFixed(1)})`);
  }
  assert.equal(third, second, 'a third reload grew wasm memory');
});

test('engine_warm makes small loads in each layout and leaves nothing behind: the load after it is the same as in a fresh engine', async () => {
  const warmed = await Engine.load(bytes), fresh = await Engine.load(bytes);
  const handed = () => new Float64Array(warmed.memory.buffer, warmed.exports.engine_heap_stats(), 3)[1];
  const before = handed();
  assert.equal(warmed.exports.engine_warm(2, 2000), 6, 'two rounds of waterfall, grid and justified');
  assert.ok(handed() - before < 64 << 10, `the warm-up's memory went back to the allocator (${handed() - before} bytes kept)`);
  assert.equal(warmed.exports.engine_warm(0, 2000), 0);
  const input = gallery(30_000, 6);
  const h = warmed.call(Op.controllerCreate, input)[1], hf = fresh.call(Op.controllerCreate, input)[1];
  for (const y of [0, 12_000, 60_000]) {
    assert.deepEqual(Array.from(warmed.call(Op.controllerRender, [h, 0, y, 1200, 800])),
      Array.from(fresh.call(Op.controllerRender, [hf, 0, y, 1200, 800])));
  }
});

test('the page takes an engine instantiated (and warmed) before its modules ran', async () => {
  const made = await WebAssembly.instantiate(bytes, {});
  made.instance.exports.engine_warm(1, 500);
  const engine = await Engine.load(Promise.resolve(made));
  assert.equal(engine.exports, made.instance.exports);
  assert.equal(engine.warmed, true);
  assert.equal((await Engine.load(bytes)).warmed, false);
});
