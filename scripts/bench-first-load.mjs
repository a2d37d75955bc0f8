// A fresh engine's first load against the next ones (issue 15.2): controllerCreate of N items in
// engine.wasm under node, each measurement in a fresh node process, after what the page may do
// first. Wall times of three loads in a row, five processes a mode:
//   scripts/build-wasm.sh && node scripts/bench-first-load.mjs [--items 100000] [--kind waterfall|grid] [MODE ...]
// Modes (joined with +): none; warm (ten loads of 5,000 items, as Controller.warmLoad made them);
// ew<R>x<N> (engine_warm(R, N), as early.js calls it); touch (every page of wasm memory written);
// big (one load of the same gallery, destroyed); wait / wait100 (500 / 100 ms for V8's background
// compiles). Extra V8 flags go to the children: NODE_FLAGS="--liftoff-only".
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const option = (name, fallback) => { const i = args.indexOf(name); if (i < 0) return fallback; const v = args[i + 1]; args.splice(i, 2); return v; };
const N = Number(option('--items', '100000')), kind = option('--kind', 'waterfall');

if (args[0] === '--child') {
  await import('../Tests/web/built-protocol.mjs');
  const { Engine } = await import('../Web/js/engine.js');
  const { Op } = await import('../Web/js/protocol.js');
  const { galleryInput } = await import('./bench-gallery-input.mjs');
  const input = (n, sections) => galleryInput(n, sections, kind);
  const steps = args[1].split('+');
  const engine = await Engine.load(readFileSync(new URL('../.build-wasm/engine.wasm', import.meta.url)));
  const big = input(N, N >= 1_000_000 ? 100 : 10);
  const once = (data) => { const a = engine.callView(Op.controllerCreate, data); if (a[0] !== 0) throw new Error(`status ${a[0]}`); engine.callView(Op.controllerDestroy, [a[1]]); };
  for (const step of steps) {
    if (step === 'warm') { const small = input(5000, 10); for (let r = 0; r < 10; r++) once(small); }
    else if (step.startsWith('ew')) { const [r, n] = step.slice(2).split('x').map(Number); engine.exports.engine_warm(r, n); }
    else if (step === 'touch') { const u = new Uint8Array(engine.memory.buffer); for (let i = 0; i < u.length; i += 4096) u[i] = u[i]; }
    else if (step === 'big') once(big);
    else if (step === 'wait') await new Promise((r) => setTimeout(r, 500));
    else if (step === 'wait100') await new Promise((r) => setTimeout(r, 100));
    else if (step !== 'none') throw new Error(`unknown mode ${step}`);
  }
  const times = [];
  for (let r = 0; r < 3; r++) { const t = performance.now(); once(big); times.push(performance.now() - t); }
  console.log(JSON.stringify(times));
} else {
  const self = fileURLToPath(import.meta.url);
  const flags = (process.env.NODE_FLAGS ?? '').split(' ').filter(Boolean);
  console.log(`| before the first load (${N.toLocaleString('en')} items, ${kind}${flags.length ? ', ' + flags.join(' ') : ''}) | first load | the next ones |`);
  console.log('| --- | ---: | ---: |');
  for (const mode of (args.length ? args : ['none', 'warm+wait', 'warm+touch', 'big', 'ew2x2000+wait100'])) {
    const runs = [];
    for (let p = 0; p < 5; p++) {
      runs.push(JSON.parse(execFileSync(process.execPath, [...flags, self, '--child', mode, '--items', String(N), '--kind', kind]).toString()));
    }
    const first = runs.map((t) => t[0]).sort((a, b) => a - b), next = runs.flatMap((t) => t.slice(1)).sort((a, b) => a - b);
    const range = (a) => `${a[0].toFixed(1)}–${a.at(-1).toFixed(1)} ms`;
    console.log(`| ${mode} | ${range(first)} (median ${first[2].toFixed(1)}) | ${range(next)} |`);
  }
}
