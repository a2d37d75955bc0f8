// A change too big for one batch, sent in parts (issue 15's limits). The server refuses a batch
// naming more than its --max-batch-items (413, with `maxItems`): while a batch runs, every other
// write to the gallery waits for it, so a limit keeps the next request quick. The page sends a
// bigger change — a selection of 100,000 photos moved, trashed or copied, a long section sorted
// or deleted, its undo — as several batches in order, each within the limit, that together make the change
// the engine already shows.

/// Items an operation names, as the server counts them (GalleryCore's BatchEdit.itemCount): a
/// section deleted names the live items it puts in the trash — `sectionItems(id)`, the ids the
/// engine took away with it — unless they went to the trash in parts before it.
export function namedItems(op, sectionItems) {
  if (Array.isArray(op.items)) return op.items.length;
  if (op.op === 'swap') return 2;
  if (op.op === 'renameItem') return 1;
  if (op.op === 'deleteSection' && !op[emptied]) return sectionItems?.(op.section)?.length ?? 0;
  return 0;
}

/// A section delete whose items went to the trash in parts just before it (a symbol: not sent).
const emptied = Symbol('emptied');

/// A section delete naming more than `size` items as its items put in the trash (cut into parts
/// below), then the delete of the section, then empty — what the server takes from a big section.
function sectionDeletesInParts(operations, size, sectionItems) {
  return operations.flatMap((op) => {
    if (op.op !== 'deleteSection' || op[emptied]) return [op];
    const items = sectionItems?.(op.section) ?? [];
    return items.length <= size ? [op] : [{ op: 'trash', items }, { ...op, [emptied]: true }];
  });
}

/// The operations as batches of at most `limit` named items and `limit` operations (the server
/// counts both: an operation naming no item, a section made, still takes its time), in order. Operations are kept
/// together while they fit; one naming more is cut into parts of the same kind. A part after
/// the first of a move or copy goes right after what the part before it placed —
/// `{afterPart: true}` in `to`, which `placeAfter` resolves once that part's answer is in (a
/// copy's new ids are the server's) — so the order comes out as one batch would have made it.
/// A section deleted with more items than a batch may name (`sectionItems(id)`: its items) has
/// them put in the trash in parts first; the delete goes with the last part.
export function splitOperations(operations, limit, sectionItems) {
  const size = Math.max(1, Math.floor(limit));
  const batches = [];
  let current = [], named = 0;
  const close = () => { if (current.length) batches.push(current); current = []; named = 0; };
  for (const op of sectionDeletesInParts(operations, size, sectionItems)) {
    const n = namedItems(op, sectionItems);
    if (named + n <= size && current.length < size) { current.push(op); named += n; continue; }
    close();
    if (n <= size) { current.push(op); named = n; continue; }
    for (let k = 0; k < op.items.length; k += size) {
      const part = { ...op, items: op.items.slice(k, k + size) };
      if (op.to && k > 0) part.to = { afterPart: true };
      // The last part stays open: what follows may go with it (a big section's delete).
      if (k + size >= op.items.length) { current = [part]; named = part.items.length; } else batches.push([part]);
    }
  }
  close();
  return batches;
}

/// A batch ready to send: `{afterPart: true}` becomes `{after: id}` of the last item the batch
/// before placed (a move's last item, a copy's last new item from its answer).
export function placeAfter(batch, previous, previousAnswer) {
  return batch.map((op) => {
    if (!op.to?.afterPart) return op;
    const last = previous?.at(-1);
    const id = last?.op === 'copy' ? previousAnswer?.createdItems?.at(-1) : last?.items?.at(-1);
    if (id == null) throw new Error('a part of a change lost its place');
    return { ...op, to: { after: id } };
  });
}
