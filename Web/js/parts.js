// A change too big for one batch, sent in parts (issue 15's limits). The server refuses a batch
// naming more than its --max-batch-items (413, with `maxItems`): while a batch runs, every other
// write to the gallery waits for it, so a limit keeps the next request quick. The page sends a
// bigger change — a selection of 100,000 photos moved, trashed or copied, a long section sorted,
// its undo — as several batches in order, each within the limit, that together make the change
// the engine already shows.

/// Items an operation names, as the server counts them (GalleryCore's BatchEdit.itemCount).
export function namedItems(op) {
  if (Array.isArray(op.items)) return op.items.length;
  if (op.op === 'swap') return 2;
  if (op.op === 'renameItem') return 1;
  return 0;
}

/// The operations as batches of at most `limit` named items, in order. Operations are kept
/// together while they fit; one naming more is cut into parts of the same kind. A part after
/// the first of a move or copy goes right after what the part before it placed —
/// `{afterPart: true}` in `to`, which `placeAfter` resolves once that part's answer is in (a
/// copy's new ids are the server's) — so the order comes out as one batch would have made it.
export function splitOperations(operations, limit) {
  const size = Math.max(1, Math.floor(limit));
  const batches = [];
  let current = [], named = 0;
  const close = () => { if (current.length) batches.push(current); current = []; named = 0; };
  for (const op of operations) {
    const n = namedItems(op);
    if (named + n <= size) { current.push(op); named += n; continue; }
    close();
    if (n <= size) { current.push(op); named = n; continue; }
    for (let k = 0; k < op.items.length; k += size) {
      const part = { ...op, items: op.items.slice(k, k + size) };
      if (op.to && k > 0) part.to = { afterPart: true };
      batches.push([part]);
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
