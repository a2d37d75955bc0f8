// The page's copy of a gallery (Web/js/gallery.js) applies the server's stages itself when
// they change items only; it must land exactly where the engine's snapshotApply lands, keep
// the model unchanged when a stage does not apply, and describe the result for the engine
// (the first stage's sources, the places of the arriving items).
//
//   node Tests/wasm/model.mjs [path/to/engine.wasm]
import { readFileSync } from 'node:fs';
import '../web/built-protocol.mjs';
import { rng, encodeSnapshot } from './random.mjs';
const { Engine } = await import('../../Web/js/engine.js');
const { Op } = await import('../../Web/js/protocol.js');
const { readStages } = await import('../../Web/js/effects.js');
const { GalleryModel } = await import('../../Web/js/gallery.js');

const engine = await Engine.load(readFileSync(process.argv[2] ?? '.build-wasm/engine.wasm'));
let nextID = 1;
const item = (id, version) => ({ id, version, title: `t${id}`, aspect: 1 });
let incremental = 0, whole = 0, refused = 0;
for (let c = 0; c < 300; c++) {
  const r = rng(31000 + c);
  const source = Array.from({ length: r.int(1, 5) }, (_, s) => ({
    id: 100 + s, items: Array.from({ length: r.int(0, c % 10 === 0 ? 400 : 40) }, () => ({ id: nextID++, version: r.int(0, 2) })),
  }));
  const target = source.map((s) => ({ id: s.id, items: s.items.map((i) => ({ ...i })) }));
  const many = c % 10 === 0;
  for (let e = many ? 80 : r.int(1, 6); e > 0; e--) {
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
  const diff = engine.call(Op.diff, [...encodeSnapshot(source), ...encodeSnapshot(target)]);
  if (diff[0] !== 0) throw new Error(`diff ${c} refused`);
  const [stages] = readStages(diff, 1);
  const model = new GalleryModel(engine);
  model.load({ gallery: { id: 1, name: 'g' }, version: 5,
    sections: source.map((s) => ({ id: s.id, title: `s${s.id}`, items: s.items.map((i) => item(i.id, i.version)) })) });
  const before = JSON.stringify(model.sections);
  // The server sends the data of inserted and reloaded items.
  const known = new Set(source.flatMap((s) => s.items.map((i) => `${i.id}:${i.version}`)));
  const items = target.flatMap((s) => s.items).filter((i) => !known.has(`${i.id}:${i.version}`)).map((i) => item(i.id, i.version));
  const sections = target.filter((s) => !source.some((x) => x.id === s.id)).map((s) => ({ id: s.id, title: `s${s.id}` }));
  if (c % 7 === 3 && stages.length) {
    // A stage that does not apply (a count off by one) leaves the model as it was.
    const broken = structuredClone(stages);
    broken[0].itemCountsAfter[0] += 1;
    if (model.apply({ fromVersion: 5, toVersion: 6, stages: broken, items, sections }) !== false) throw new Error(`model ${c}: a broken stage applied`);
    if (JSON.stringify(model.sections) !== before || model.version !== 5) throw new Error(`model ${c}: a refused change changed the model`);
    refused++;
  }
  const applied = model.apply({ fromVersion: 5, toVersion: 6, stages, items, sections });
  if (!applied) throw new Error(`model ${c}: the stages did not apply`);
  const got = model.sections.map((s) => ({ id: s.id, items: s.items.map((i) => ({ id: i.id, version: i.version })) }));
  if (JSON.stringify(got) !== JSON.stringify(target)) throw new Error(`model ${c}: not the target`);
  if (JSON.stringify(model.encode()) !== JSON.stringify(encodeSnapshot(target))) throw new Error(`model ${c}: encode is not the target`);
  const first = stages[0];
  const sources = first ? [...first.itemDeletes, ...first.itemMoves.map((m) => m.from)].map(([s, i]) => source[s].items[i].id) : [];
  if (JSON.stringify(applied.sources) !== JSON.stringify(sources)) throw new Error(`model ${c}: wrong sources`);
  if (applied.check) {
    for (const [id, s, i, v] of applied.check.placed) {
      if (target[s].items[i]?.id !== id || target[s].items[i].version !== v) throw new Error(`model ${c}: check places ${id} wrongly`);
    }
    incremental++;
  } else whole++;
  if (model.apply({ fromVersion: 5, toVersion: 6, stages, items, sections })?.skipped !== true) throw new Error(`model ${c}: a change we have was not skipped`);
}
console.log(`model ok: 300 changes (${incremental} with a check for the engine, ${whole} without), ${refused} broken ones refused`);
