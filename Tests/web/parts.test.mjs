// Issue 15's limits: a change naming more items than one batch may is sent as batches in order
// (Web/js/parts.js). Each part is checked by playing the parts on a model of the server's
// rules (docs/API.md "Batches") beside the whole change played at once: the same order.
import assert from 'node:assert/strict';
import { splitOperations, placeAfter, namedItems } from '../../Web/js/parts.js';

// A gallery as the server keeps it: sections of ids. Moves and copies follow docs/API.md.
function play(sections, ops, nextId) {
  const created = [];
  const where = (id) => { for (const [s, items] of sections.entries()) { const i = items.indexOf(id); if (i >= 0) return [s, i]; } return null; };
  for (const op of ops) {
    if (op.op === 'trash') { for (const id of op.items) { const [s, i] = where(id); sections.get(s).splice(i, 1); } continue; }
    let items = op.items;
    if (op.op === 'move') for (const id of items) { const [s, i] = where(id); sections.get(s).splice(i, 1); }
    if (op.op === 'copy') { items = items.map(() => nextId.value++); created.push(...items); }
    const to = op.to;
    let s, i;
    if (to.after != null) { [s, i] = where(to.after); i++; }
    else if (to.before != null) [s, i] = where(to.before);
    else { s = to.section; i = to.index ?? sections.get(s).length; }
    sections.get(s).splice(i, 0, ...items);
  }
  return { createdItems: created };
}

const gallery = () => new Map([[1, Array.from({ length: 40 }, (_, k) => k + 1)], [2, Array.from({ length: 40 }, (_, k) => k + 101)]]);
const picked = [3, 7, 8, 15, 22, 23, 39, 102, 140, 120, 101, 30, 31, 5];

for (const to of [{ section: 2, index: 0 }, { section: 2 }, { after: 110 }, { before: 110 }, { section: 1, index: 0 }]) {
  for (const kind of ['move', 'copy', 'trash']) {
    const op = kind === 'trash' ? { op: kind, items: picked } : { op: kind, items: picked, to };
    const whole = gallery();
    play(whole, [op], { value: 1000 });
    for (const limit of [1, 3, 5, 13, 14, 100]) {
      const batches = splitOperations([op], limit);
      assert.equal(batches.length, Math.ceil(picked.length / limit), `${kind} ${JSON.stringify(to)} limit ${limit}: parts`);
      for (const b of batches) assert.ok(b.reduce((n, o) => n + namedItems(o), 0) <= limit);
      const parted = gallery();
      let previous = null, answer = null;
      const nextId = { value: 1000 };
      for (const b of batches) {
        const ops = placeAfter(b, previous, answer);
        for (const o of ops) assert.ok(!o.to?.afterPart, 'every part has a real place when it is sent');
        answer = play(parted, ops, nextId);
        previous = ops;
      }
      assert.deepEqual([...parted.entries()], [...whole.entries()], `${kind} to ${JSON.stringify(to)} in parts of ${limit}: the order one batch makes`);
    }
  }
}

// Operations that fit stay together, in order; section edits name no items.
const mixed = [{ op: 'renameSection', section: 1, title: 'x' }, { op: 'move', items: [1, 2], to: { section: 2 } },
  { op: 'trash', items: [3, 4, 5] }, { op: 'swap', a: 6, b: 7 }];
assert.deepEqual(splitOperations(mixed, 10), [mixed]);
assert.deepEqual(splitOperations(mixed, 4).map((b) => b.map((o) => o.op)), [['renameSection', 'move'], ['trash'], ['swap']]);
assert.throws(() => placeAfter([{ op: 'move', items: [1], to: { afterPart: true } }], null, null), /lost its place/);

// A section deleted names its items (the server counts them: they go to the trash). Over the
// limit, its items go to the trash in parts first and the delete with the last part; the ops sent
// are plain JSON (the mark that the section is emptied is not). Within it, it stays one operation.
const sectionItems = (id) => (id === 2 ? Array.from({ length: 7 }, (_, k) => k + 101) : []);
const del = { op: 'deleteSection', section: 2 };
assert.equal(namedItems(del, sectionItems), 7);
assert.equal(namedItems(del), 0, 'without the items it takes, as before');
assert.deepEqual(splitOperations([del], 7, sectionItems), [[del]]);
const inParts = splitOperations([del], 3, sectionItems);
assert.deepEqual(JSON.parse(JSON.stringify(inParts)), [[{ op: 'trash', items: [101, 102, 103] }], [{ op: 'trash', items: [104, 105, 106] }],
  [{ op: 'trash', items: [107] }, del]]);
for (const b of inParts) assert.ok(b.reduce((n, o) => n + namedItems(o, sectionItems), 0) <= 3, 'each part within the limit as the server counts it');
// Split again (a smaller limit learnt from a 413 half way): the items are not trashed twice.
const again = splitOperations(inParts.slice(1).flat(), 2, sectionItems);
// (At most two operations a batch too: the server counts operations as well as items.)
assert.deepEqual(JSON.parse(JSON.stringify(again)), [[{ op: 'trash', items: [104, 105] }], [{ op: 'trash', items: [106] }, { op: 'trash', items: [107] }], [del]]);
// Beside other operations it counts what it takes: a trash of 2 and the delete of 7 do not share a batch of 9.
assert.deepEqual(splitOperations([{ op: 'trash', items: [1, 2] }, del], 8, sectionItems).map((b) => b.map((o) => o.op)), [['trash'], ['deleteSection']]);
// Operations that name no item count as operations: a batch holds at most `limit` of them (the
// server's 413 with maxOperations: 30,000 sections made at once held every gallery's writes).
const made = Array.from({ length: 5 }, (_, k) => ({ op: 'createSection', title: `s${k}` }));
assert.deepEqual(splitOperations(made, 2).map((b) => b.length), [2, 2, 1]);
assert.deepEqual(splitOperations(made, 2).flat(), made, 'in order, none lost');
console.log('parts ok: a change in parts makes the order one batch makes (move, copy, trash; five kinds of place; six limits); a big section deleted in parts');
