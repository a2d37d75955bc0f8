// The page's item table (Web/js/gallery.js ItemTable): a columnar first load makes an item's
// object only when asked for, finds every id (runs sorted in idle slices, scanned before),
// answers undefined for ids it does not hold, and lets data the server sent later win.
import assert from 'node:assert/strict';
import './built-protocol.mjs';
const { ItemTable, GalleryModel } = await import('../../Web/js/gallery.js');

function columns(n, seed = 7) {
  // Ids in no particular order, some large, as after years of moves and copies.
  const id = Array.from({ length: n }, (_, k) => 1 + ((k * 7919 + seed) % n) + (k % 3) * n * 10);
  return {
    format: 'columns-2', gallery: { id: 1, name: 'g', version: 3 }, version: 3,
    sections: [{ id: 10, title: 'a', count: Math.floor(n / 2) }, { id: 11, title: 'b', count: n - Math.floor(n / 2) }],
    id, contentVersion: id.map((x) => x % 4), aspect: id.map((x) => 0.5 + (x % 7) / 4),
    state: id.map((x) => (x % 11 === 0 ? 'p' : 'r')).join(''), title: id.map((x) => `IMG_${x}`),
    width: id.map(() => 400), height: id.map(() => 300), details: { [id[5]]: { reason: 'r', sourceURL: 'https://x/y.jpg' } },
  };
}

const n = 200_000; // four runs of 65,536
const c = columns(n);
const table = new ItemTable();
table.useColumns(c);
assert.equal(table._made.size, 0, 'nothing made up front');
// Before the later runs are sorted (scanned), and after (searched): the same answers.
const probe = [0, 1, 65535, 65536, 131071, 199999, 12345, 150000];
const check = () => {
  for (const k of probe) {
    const it = table.get(c.id[k]);
    assert.equal(it.id, c.id[k]);
    assert.equal(it.title, c.title[k]);
    assert.equal(it.version, c.contentVersion[k]);
    assert.equal(it.aspect, c.aspect[k]);
    assert.equal(it.state, c.state[k] === 'r' ? 'ready' : 'pending');
    assert.equal(it.thumbnails?.grid ?? null, it.state === 'ready' ? `/api/items/${it.id}/image/grid.jpg?v=${it.version}` : null);
  }
  assert.equal(table.get(-5), undefined);
  assert.equal(table.get(n * 100), undefined);
  assert.equal(table.has(c.id[199999]), true);
};
check();
assert.ok(table._runs.slice(1).some((r) => !r.keys), 'later runs are sorted later');
await new Promise((resolve) => { const wait = () => (table._runs.every((r) => r.keys) ? resolve() : setTimeout(wait, 5)); wait(); });
check();
// Every id is found at its own position once sorted.
for (let k = 0; k < n; k += 97) assert.equal(table._find(c.id[k]), k);
assert.equal(table.get(c.id[5]).reason, 'r');
assert.equal(table.get(c.id[5]).sourceURL, 'https://x/y.jpg');
assert.ok(table._made.size < 2000, `only the asked-for items are made (${table._made.size})`);
// Data the server sent later wins.
table.set(c.id[7], { id: c.id[7], title: 'renamed', version: 9 });
assert.equal(table.get(c.id[7]).title, 'renamed');
// A new load forgets the old one; runs of the old load sorted late do not leak into it.
const small = columns(10, 3);
table.useColumns(small);
assert.equal(table.get(c.id[150000]), undefined);
assert.equal([...table.values()].length, 10);

// The model hands the loaded order to the engine as columns, once, and counts.
const model = new GalleryModel();
model.loadColumns(c);
assert.equal(model.count, n);
const a = model.takeArrangement();
assert.equal(a.ids, c.id);
assert.deepEqual(a.sections.map((s) => s.count), [n / 2, n / 2]);
assert.equal(model.takeArrangement(), null);
console.log(`items: ${n} columns, lookups before and after the runs are sorted, overrides, reloads ok`);
