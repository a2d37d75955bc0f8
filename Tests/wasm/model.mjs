// The page keeps no arrangement: GalleryModel takes a change's item data and, from the ids
// every stage names (as the server sends them, docs/API.md), tells the engine what it needs —
// the first stage's sources for controllerLiveChanges, and for one stage the places of the
// arriving items for controllerModelMatches. Checked against the engine on random changes:
// the engine that follows a change lands on the target; an engine that already shows the
// target says so; one that does not, does not; a broken stage is refused and changes nothing.
//
//   node Tests/wasm/model.mjs [path/to/engine.wasm]
import { readFileSync } from 'node:fs';
import '../web/built-protocol.mjs';
import { rng, encodeSnapshot } from './random.mjs';
const { Engine } = await import('../../Web/js/engine.js');
const { Op, LayoutKind, ReorderMode, Cadence, Snapping } = await import('../../Web/js/protocol.js');
const { readStages } = await import('../../Web/js/effects.js');
const { GalleryModel, encodeStages } = await import('../../Web/js/gallery.js');

const engine = await Engine.load(readFileSync(process.argv[2] ?? '.build-wasm/engine.wasm'));
const call = (op, input) => engine.call(op, input);

/// A controller showing `sections` (a waterfall of 4 columns, 800 × 600).
function controller(sections) {
  const n = sections.reduce((k, s) => k + s.items.length, 0);
  const a = call(Op.controllerCreate, [...encodeSnapshot(sections), ...Array(n).fill(1), LayoutKind.waterfall, 4, 0,
    800, 40, 8, 8, 8, 8, 6, 6, 0, 0.5, 800, 600, ReorderMode.insert, Cadence.immediate, Snapping.none]);
  if (a[0] !== 0) throw new Error(`controllerCreate refused (${a[0]})`);
  return a[1];
}
const shown = (h) => Array.from(call(Op.controllerSnapshot, [h]));
const matches = (h, check) => call(Op.controllerModelMatches, [h, check.counts.length, ...check.counts,
  check.placed.length, ...check.placed.flat(), check.absent.length, ...check.absent])[1] === 1;

/// The stages with the ids the server adds: each stage's deleted, moved and reloaded items,
/// read from the arrangement that stage applies to (the engine's snapshotApply walks them).
function withIDs(stages, source) {
  let current = source.map((s) => s.items.map((i) => ({ ...i })));
  let sections = source;
  return stages.map((st) => {
    const at = ([s, i]) => current[s][i].id;
    const named = { ...st, deletedIDs: st.itemDeletes.map(at), movedIDs: st.itemMoves.map((m) => at(m.from)),
      reloadedIDs: st.itemReloads.map((r) => at(r.at)) };
    const a = call(Op.snapshotApply, [...encodeSnapshot(sections), ...encodeStages([st])]);
    if (a[0] !== 0) throw new Error('snapshotApply refused a diff stage');
    sections = [];
    current = [];
    let k = 2;
    for (let s = 0; s < a[1]; s++) {
      const id = a[k++], count = a[k++];
      const items = Array.from({ length: count }, (_, i) => ({ id: a[k + i], version: a[k + count + i] }));
      k += 2 * count;
      sections.push({ id, items });
      current.push(items);
    }
    return named;
  });
}

let nextID = 1;
const item = (id, version) => ({ id, version, title: `t${id}`, aspect: 1 });
let checked = 0, followed = 0, refused = 0;
for (let c = 0; c < 300; c++) {
  const r = rng(31000 + c);
  const source = Array.from({ length: r.int(1, 5) }, (_, s) => ({
    id: 100 + s, items: Array.from({ length: r.int(0, c % 10 === 0 ? 400 : 40) }, () => ({ id: nextID++, version: r.int(0, 2) })),
  }));
  const target = source.map((s) => ({ id: s.id, items: s.items.map((i) => ({ ...i })) }));
  for (let e = c % 10 === 0 ? 80 : r.int(1, 6); e > 0; e--) {
    const from = target.filter((s) => s.items.length);
    const op = r.int(0, 3);
    if (op === 0 && from.length) {
      const a = r.pick(from); const [it] = a.items.splice(r.int(0, a.items.length - 1), 1);
      const b = r.pick(target); b.items.splice(r.int(0, b.items.length), 0, it);
    } else if (op === 1) {
      const b = r.pick(target); b.items.splice(r.int(0, b.items.length), 0, { id: nextID++, version: r.int(0, 2) });
    } else if (op === 2 && from.length) {
      const a = r.pick(from); a.items.splice(r.int(0, a.items.length - 1), 1);
    } else if (from.length) {
      const a = r.pick(from); a.items[r.int(0, a.items.length - 1)].version++;
    }
  }
  if (c % 25 === 24) target.push({ id: 900, items: [{ id: nextID++, version: 0 }] }); // a section change
  const diff = call(Op.diff, [...encodeSnapshot(source), ...encodeSnapshot(target)]);
  if (diff[0] !== 0) throw new Error(`diff ${c} refused`);
  const stages = withIDs(readStages(diff, 1)[0], source);

  const model = new GalleryModel();
  model.load({ gallery: { id: 1, name: 'g' }, version: 5,
    sections: source.map((s) => ({ id: s.id, title: `s${s.id}`, items: s.items.map((i) => item(i.id, i.version)) })) });
  const arrangement = model.takeArrangement();
  if (JSON.stringify(arrangement.ids) !== JSON.stringify(source.flatMap((s) => s.items.map((i) => i.id)))
    || JSON.stringify(arrangement.sections.map((s) => [s.id, s.count])) !== JSON.stringify(source.map((s) => [s.id, s.items.length]))) {
    throw new Error(`model ${c}: the arrangement handed over is not the loaded order`);
  }
  if (model.takeArrangement() !== null) throw new Error(`model ${c}: the arrangement was kept after the engine took it`);
  const h = controller(source);
  const before = shown(h);
  // The server sends the data of inserted and reloaded items.
  const known = new Set(source.flatMap((s) => s.items.map((i) => `${i.id}:${i.version}`)));
  const items = target.flatMap((s) => s.items).filter((i) => !known.has(`${i.id}:${i.version}`)).map((i) => item(i.id, i.version));
  const sections = target.map((s) => ({ id: s.id, title: `s${s.id}` }));
  const change = { fromVersion: 5, toVersion: 6, stages, items, sections };

  if (c % 7 === 3 && stages.length) {
    // A stage that does not apply (a count off by one): the engine refuses it and keeps its arrangement.
    const broken = structuredClone(change);
    broken.stages[0].itemCountsAfter[0] += 1;
    const m = new GalleryModel();
    m.load({ gallery: { id: 1, name: 'g' }, version: 5, sections: [] });
    const applied = m.apply(broken);
    const a = call(Op.controllerLiveChanges, [h, ...encodeStages(applied.stages), 0, applied.sources.length, ...applied.sources]);
    if (a[0] !== -7) throw new Error(`model ${c}: a broken stage was not refused (${a[0]})`);
    if (JSON.stringify(shown(h)) !== JSON.stringify(before)) throw new Error(`model ${c}: a refused change changed the engine`);
    refused++;
  }

  const applied = model.apply(change);
  if (!applied || applied.skipped) throw new Error(`model ${c}: the change was not taken`);
  if (model.version !== 6 || model.count !== target.reduce((k, s) => k + s.items.length, 0)) throw new Error(`model ${c}: version or count`);
  for (const it of items) if (model.items.get(it.id) !== it) throw new Error(`model ${c}: item data not taken`);
  const first = stages[0];
  const sources = first ? [...first.itemDeletes, ...first.itemMoves.map((m) => m.from)].map(([s, i]) => source[s].items[i].id) : [];
  if (JSON.stringify(applied.sources) !== JSON.stringify(sources)) throw new Error(`model ${c}: wrong sources`);

  // Our own batch coming back: an engine that shows the target says so, the one before the change does not.
  if (applied.check) {
    for (const [id, s, i, v] of applied.check.placed) {
      if (s >= 0 && (target[s].items[i]?.id !== id || target[s].items[i].version !== v)) throw new Error(`model ${c}: check places ${id} wrongly`);
    }
    const there = controller(target);
    if (!matches(there, applied.check)) throw new Error(`model ${c}: the engine showing the target does not match the check`);
    call(Op.controllerDestroy, [there]);
    if (stages.length && matches(h, applied.check)) throw new Error(`model ${c}: the engine before the change matched the check`);
    checked++;
  }
  // Another window's change: the engine follows it and lands on the target.
  const input = [h, ...encodeStages(applied.stages), 0, applied.sources.length, ...applied.sources];
  const a = call(Op.controllerLiveChanges, input);
  if (a[0] !== 0) throw new Error(`model ${c}: the engine refused the change (${a[0]})`);
  if (JSON.stringify(shown(h).slice(1)) !== JSON.stringify(encodeSnapshot(target))) throw new Error(`model ${c}: the engine is not at the target`);
  followed++;
  call(Op.controllerDestroy, [h]);
  if (model.apply(change)?.skipped !== true) throw new Error(`model ${c}: a change we have was not skipped`);
  if (model.apply({ ...change, fromVersion: 7, toVersion: 8 }) !== false) throw new Error(`model ${c}: a change after a gap was taken`);
  // Stages without ids (an older server): nothing to check by, so the engine is not asked.
  const bare = new GalleryModel();
  bare.load({ gallery: { id: 1, name: 'g' }, version: 5, sections: [] });
  const plain = bare.apply({ ...change, stages: stages.map(({ deletedIDs, movedIDs, reloadedIDs, ...st }) => st) });
  if (stages.length && (plain.sources !== null || plain.check !== null)) throw new Error(`model ${c}: stages without ids gave sources or a check`);
}
console.log(`model ok: 300 changes followed by the engine (${followed}), ${checked} with a check it answered, ${refused} broken ones refused`);
