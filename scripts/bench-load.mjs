// A million-item gallery's load in engine.wasm under node (issue 15.1): controllerCreate of 1M
// items in 100 sections, waterfall and grid, as the page makes it — the first load in a fresh
// engine after the page's warm-up loads, with and without its memory made ready first
// (Engine.reserve + touch, as Controller.warmLoad does while the columns download), and a
// warm load (memory reused). CPU time (user + system, this process) beside wall time; each
// measurement in a fresh node process. Several engine.wasm files compare in the same run:
//   scripts/build-wasm.sh && node scripts/bench-load.mjs [--rounds 3] NAME=ENGINE.wasm ...
//   (default: new=.build-wasm/engine.wasm)
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import '../Tests/web/built-protocol.mjs';
const { Engine } = await import('../Web/js/engine.js');
const { Op } = await import('../Web/js/protocol.js');
const { galleryInput } = await import('./bench-gallery-input.mjs');

const N = 1_000_000, S = 100;

const ms = (c) => (c.user + c.system) / 1000;

if (process.argv[2] === '--child') {
  const [, , , wasm, kind, mode] = process.argv;
  const engine = await Engine.load(readFileSync(wasm));
  const small = galleryInput(5000, 10, kind), big = galleryInput(N, S, kind);
  for (let r = 0; r < 10; r++) { const a = engine.callView(Op.controllerCreate, small); engine.callView(Op.controllerDestroy, [a[1]]); }
  if (mode === 'reserved' && engine.reserve) {
    const bytes = N * (16 + (kind === 'waterfall' ? 124 : 116)); // Controller's loadBytes
    const range = engine.reserve(bytes);
    while (range && engine.touch(range, 2 << 20));
  }
  // Background work of the warm-up (V8's optimising compiles on other threads) done before the
  // timed load, in both modes: the CPU figures are this process's, all threads.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const load = () => {
    const c0 = process.cpuUsage(), t0 = performance.now();
    const a = engine.callView(Op.controllerCreate, big);
    const wall = performance.now() - t0, cpu = ms(process.cpuUsage(c0));
    if (a[0] !== 0) throw new Error(`status ${a[0]}`);
    engine.callView(Op.controllerDestroy, [a[1]]);
    return [cpu, wall];
  };
  const first = load(), again = load();
  console.log(JSON.stringify({ first, again: load(), memory: engine.memory.buffer.byteLength / 1048576, warmCheck: again }));
} else {
  const args = process.argv.slice(2);
  const rounds = args[0] === '--rounds' ? Number(args[1]) : 3;
  const named = (args[0] === '--rounds' ? args.slice(2) : args);
  const engines = (named.length ? named : ['new=.build-wasm/engine.wasm']).map((s) => s.split('='));
  const self = fileURLToPath(import.meta.url);
  const rows = {};
  for (let r = 0; r < rounds; r++) {
    for (const kind of ['waterfall', 'grid']) {
      for (const [name, wasm] of (r % 2 ? [...engines].reverse() : engines)) {
        for (const mode of ['fresh', 'reserved']) {
          const out = JSON.parse(execFileSync(process.execPath, [self, '--child', wasm, kind, mode]).toString());
          (rows[`${name} ${kind} ${mode}`] ??= []).push(out);
        }
      }
    }
  }
  const f = (xs) => xs.map((x) => x.toFixed(0)).join(', ');
  console.log('| engine | layout | memory before the load | first load CPU (ms) | first load wall (ms) | warm load CPU (ms) | wasm memory after (MB) |');
  console.log('| --- | --- | --- | ---: | ---: | ---: | ---: |');
  for (const [key, xs] of Object.entries(rows)) {
    const [name, kind, mode] = key.split(' ');
    console.log(`| ${name} | ${kind} | ${mode === 'fresh' ? 'as it comes' : 'reserved and touched'} | ${f(xs.map((x) => x.first[0]))} | ${f(xs.map((x) => x.first[1]))} | ${f(xs.map((x) => x.again[0]))} | ${f(xs.map((x) => x.memory))} |`);
  }
}
