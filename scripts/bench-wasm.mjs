// The wasm layout under node, beside the native engine in the same run: the same bridge
// calls (prepare at 10k and 100k items for every layout kind, visible queries, hit-tests)
// run in engine.wasm, timed here, and natively through `engine-cli bench`.
//   swift build -c release --product engine-cli && scripts/build-wasm.sh && \
//   node scripts/bench-wasm.mjs .build/release/engine-cli
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import '../Tests/web/built-protocol.mjs';
import { rng } from '../Tests/wasm/random.mjs';
const { Engine } = await import('../Web/js/engine.js');
const { Op, LayoutKind: Kind, EventType } = await import('../Web/js/protocol.js');
const { readRender } = await import('../Web/js/effects.js');

const cli = process.argv[2] ?? '.build/release/engine-cli';
const engine = await Engine.load(readFileSync(process.argv[3] ?? '.build-wasm/engine.wasm'));
const REPEAT = 9, QUERIES = 2000;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const kinds = [['grid 6 col', Kind.grid, 6, 1], ['flow 180×180', Kind.flow, 180, 180],
               ['waterfall 6 col', Kind.waterfall, 6, 0], ['justified 200', Kind.justified, 200, 0]];
const calls = [];      // recorded for the native run
const rows = [];
let handle = 0;
for (const count of [10_000, 100_000]) {
  const r = rng(2024);
  const sections = 100;
  const aspects = Array.from({ length: count }, () => 0.3 + 2.7 * r.next());
  for (const [name, kind, a, b] of kinds) {
    const create = [kind, a, b, 1200, 40, 8, 8, 8, 8, 4, 4, 0, 0.5];
    engine.call(Op.layoutCreate, create); calls.push([Op.layoutCreate, create]);
    const h = handle++;
    const prepareInput = Float64Array.from([h, sections, ...Array(sections).fill(count / sections), ...aspects]);
    const times = [];
    let height = 0;
    for (let k = 0; k < REPEAT; k++) {
      const t0 = performance.now();
      const answer = engine.callView(Op.layoutPrepare, prepareInput);
      times.push(performance.now() - t0);
      height = answer[2];
    }
    calls.push([Op.layoutPrepare, prepareInput]);
    const rects = [], points = [];
    for (let q = 0; q < QUERIES; q++) {
      rects.push([h, 0, r.next() * Math.max(0, height - 800), 1200, 800]);
      points.push([h, r.next() * 1200, r.next() * height]);
    }
    const timeLoop = (op, inputs) => {
      const runs = [];
      for (let k = 0; k < REPEAT; k++) {
        const t0 = performance.now();
        for (const input of inputs) engine.callView(op, input);
        runs.push((performance.now() - t0) / inputs.length);
      }
      return median(runs);
    };
    const visible = timeLoop(Op.layoutAttributes, rects);
    const hit = timeLoop(Op.layoutHitTest, points);
    for (const input of rects) calls.push([Op.layoutAttributes, input]);
    for (const input of points) calls.push([Op.layoutHitTest, input]);
    rows.push({ name, count, prepare: median(times), visible, hit });
  }
}

// The same calls natively: per call the median of REPEAT runs, in ns.
const dir = mkdtempSync(join(tmpdir(), 'bench-wasm-'));
const words = [];
for (const [op, input] of calls) { words.push(op, input.length); for (const v of input) words.push(v); }
writeFileSync(join(dir, 'calls.bin'), Buffer.from(Float64Array.from(words).buffer));
const native = execFileSync(cli, ['bench', join(dir, 'calls.bin'), String(REPEAT)], { maxBuffer: 1 << 26 })
  .toString().trim().split('\n').map((l) => Number(l.split(' ')[1]) / 1e6); // ms
let at = 0;
const fmt = (ms) => (ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(2)} µs`);
console.log('| layout | items | wasm prepare | native prepare | wasm/native | wasm visible query | native | wasm hit-test | native |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const row of rows) {
  at += 1; // create
  const prepare = native[at++];
  let visible = 0, hit = 0;
  for (let q = 0; q < QUERIES; q++) visible += native[at++];
  for (let q = 0; q < QUERIES; q++) hit += native[at++];
  console.log(`| ${row.name} | ${row.count / 1000}k | ${fmt(row.prepare)} | ${fmt(prepare)} | ${(row.prepare / prepare).toFixed(2)}× | ${fmt(row.visible)} | ${fmt(visible / QUERIES)} | ${fmt(row.hit)} | ${fmt(hit / QUERIES)} |`);
}

// One drag frame through the interaction controller at 100k items (pointer move + tick +
// render of the viewport), wasm beside native, the same recorded calls.
{
  const r = rng(77);
  const count = 100_000, sections = 100;
  const snap = [sections];
  let id = 1;
  for (let s = 0; s < sections; s++) {
    snap.push(1000 + s, count / sections);
    for (let i = 0; i < count / sections; i++) snap.push(id++);
    for (let i = 0; i < count / sections; i++) snap.push(0);
  }
  const asp = Array.from({ length: count }, () => 0.3 + 2.7 * r.next());
  const rowsOut = [];
  for (const [name, kind, a] of [['grid 6 col', Kind.grid, 6], ['waterfall 6 col', Kind.waterfall, 6]]) {
    const frameCalls = [];
    const create = [...snap, ...asp, kind, a, kind === Kind.grid ? 1 : 0, 1200, 40, 8, 8, 8, 8, 4, 4, 0, 0.5, 1200, 800, 0, 0, 0];
    const h = engine.call(Op.controllerCreate, create)[1];
    frameCalls.push([Op.controllerCreate, create]);
    const scrollTo = [h, EventType.scroll, 0, 400_000, 0];
    engine.call(Op.controllerEvent, scrollTo); frameCalls.push([Op.controllerEvent, scrollTo]);
    // Press on the centre of an item in the middle of the viewport.
    const shown = readRender(engine.call(Op.controllerRender, [h, 0, 0, 1200, 1e9]));
    const cell = shown.cells.find((c) => c.kind === 'item' && c.y - shown.offsetY > 200);
    const down = [h, EventType.pointerDown, 1, cell.x + cell.w / 2, cell.y - shown.offsetY + cell.h / 2, 1, 0, 0];
    engine.call(Op.controllerEvent, down); frameCalls.push([Op.controllerEvent, down]);
    const times = [];
    let t = 1;
    for (let f = 0; f < 240; f++) {
      t += 1 / 60;
      const move = [h, EventType.pointerMove, 1, 100 + (f * 7) % 1000, 100 + (f * 3) % 600, t, 0, 0];
      const tick = [h, t];
      const rect = [h, 0, shown.offsetY - 600, 1200, 2000];
      const t0 = performance.now();
      engine.callView(Op.controllerEvent, move);
      engine.callView(Op.controllerTick, tick);
      engine.callView(Op.controllerRender, rect);
      times.push(performance.now() - t0);
      frameCalls.push([Op.controllerEvent, move], [Op.controllerTick, tick], [Op.controllerRender, rect]);
    }
    const phase = readRender(engine.call(Op.controllerRender, [h, 0, 0, 1, 1])).phase;
    if (phase !== 'dragging') throw new Error(`the benchmark drag is not dragging (${phase})`);
    const dir2 = mkdtempSync(join(tmpdir(), 'bench-ctl-'));
    const w = [];
    // A fresh engine-cli hands out handle 0: renumber.
    for (const [op, input] of frameCalls) {
      w.push(op, input.length);
      input.forEach((v, k) => w.push(k === 0 && op !== Op.controllerCreate ? 0 : v));
    }
    writeFileSync(join(dir2, 'calls.bin'), Buffer.from(Float64Array.from(w).buffer));
    const nat = execFileSync(cli, ['bench', join(dir2, 'calls.bin'), '1'], { maxBuffer: 1 << 26 })
      .toString().trim().split('\n').map((l) => Number(l.split(' ')[1]) / 1e6);
    const frames = [];
    for (let k = 3; k + 2 < nat.length; k += 3) frames.push(nat[k] + nat[k + 1] + nat[k + 2]);
    rowsOut.push(`| ${name} | 100k | ${fmt(median(times.slice(5)))} | ${fmt(median(frames.slice(5)))} | ${fmt(Math.max(...times.slice(5)))} | ${fmt(Math.max(...frames.slice(5)))} |`);
    engine.call(Op.controllerDestroy, [h]);
  }
  console.log('');
  console.log('| controller drag frame (move + tick + render) | items | wasm median | native median | wasm max | native max |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const row of rowsOut) console.log(row);
}
