// Decoding the engine's flat answers: effects (BridgeEffect in BridgeProtocol.swift) and
// rendered cells. Plain objects; no DOM, so node tests use it too.

import { Effect, CommitKind, DropOperation, Phase, CellKind, ServerEdit, Anchor } from './protocol.js';

/// A protocol table's names by code: names(CommitKind)[0] === 'move'.
const names = (table) => Object.fromEntries(Object.entries(table).map(([name, code]) => [code, name]));
const commitKind = names(CommitKind), operation = names(DropOperation), phase = names(Phase), cellKind = names(CellKind);

const utf8 = new TextDecoder();

/// Reads stages as the bridge writes them, starting at a[k]; returns [stages, next k].
export function readStages(a, k) {
  const stages = [];
  const n = a[k++];
  for (let s = 0; s < n; s++) {
    const st = { sectionDeletes: [], sectionInserts: [], sectionMoves: [], itemDeletes: [],
      itemInserts: [], itemMoves: [], itemReloads: [], itemCountsAfter: [] };
    for (let c = a[k++]; c > 0; c--) st.sectionDeletes.push(a[k++]);
    for (let c = a[k++]; c > 0; c--) {
      const index = a[k++], id = a[k++], len = a[k++];
      st.sectionInserts.push({ index, id, items: Array.from(a.subarray(k, k + len)), versions: Array.from(a.subarray(k + len, k + 2 * len)) });
      k += 2 * len;
    }
    for (let c = a[k++]; c > 0; c--) { st.sectionMoves.push({ from: [a[k]], to: [a[k + 1]] }); k += 2; }
    for (let c = a[k++]; c > 0; c--) { st.itemDeletes.push([a[k], a[k + 1]]); k += 2; }
    for (let c = a[k++]; c > 0; c--) { st.itemInserts.push({ at: [a[k], a[k + 1]], id: a[k + 2], version: a[k + 3] }); k += 4; }
    for (let c = a[k++]; c > 0; c--) { st.itemMoves.push({ from: [a[k], a[k + 1]], to: [a[k + 2], a[k + 3]] }); k += 4; }
    for (let c = a[k++]; c > 0; c--) { st.itemReloads.push({ at: [a[k], a[k + 1]], version: a[k + 2] }); k += 3; }
    for (let c = a[k++]; c > 0; c--) st.itemCountsAfter.push(a[k++]);
    stages.push(st);
  }
  return [stages, k];
}

const serverEdit = names(ServerEdit);

/// An anchor the engine chose, as the server's destination JSON (docs/API.md); undefined for none.
export function anchorJSON(kind, at) {
  switch (kind) {
    case Anchor.after: return { after: at };
    case Anchor.before: return { before: at };
    case Anchor.sectionStart: return { section: at, index: 0 };
    case Anchor.sectionEnd: return { section: at };
    default: return undefined;
  }
}

/// Reads a commit's server edits, starting at a[k], as the server's batch operations
/// (docs/API.md): [operations, next k]. The page sends them as they are.
export function readEdits(a, k) {
  const ops = [];
  for (let n = a[k++]; n > 0; n--) {
    const op = serverEdit[a[k++]];
    const count = a[k++];
    const items = Array.from(a.subarray(k, k + count));
    k += count;
    const anchor = a[k], at = a[k + 1];
    k += 2;
    const to = anchorJSON(anchor, at);
    if (op === 'swap') ops.push({ op, a: items[0], b: items[1] });
    // Section edits: the section id as the one item, the index as the anchor's id (docs/engine-bridge.md).
    else if (op === 'createSection') ops.push({ op, title: '', index: at });
    else if (op === 'moveSection') ops.push({ op, section: items[0], index: at });
    else if (op === 'deleteSection') ops.push({ op, section: items[0] });
    else if (to) ops.push({ op, items, to });
    else ops.push({ op, items });
  }
  return [ops, k];
}

/// Decodes an effect list answer (a[0] is the status).
export function readEffects(a) {
  if (a[0] !== 0) return [];
  const out = [];
  let k = 1;
  const ids = () => { const n = a[k++]; const list = Array.from(a.subarray(k, k + n)); k += n; return list; };
  const placements = () => {
    const list = [];
    for (let n = a[k++]; n > 0; n--) { list.push({ id: a[k], section: a[k + 1], index: a[k + 2], aspect: a[k + 3], version: a[k + 4] }); k += 5; }
    return list;
  };
  for (let n = a[k++]; n > 0; n--) {
    const code = a[k++];
    switch (code) {
      case Effect.scrollBy: out.push({ type: 'scrollBy', dy: a[k++] }); break;
      case Effect.commit: {
        const kind = commitKind[a[k++]];
        const removed = placements(), inserted = placements(), copiedFrom = ids(), copies = ids();
        const [stages, afterStages] = readStages(a, k);
        const [operations, next] = readEdits(a, afterStages);
        k = next;
        out.push({ type: 'commit', kind, removed, inserted, copiedFrom, copies, stages, operations });
        break;
      }
      case Effect.loadDroppedData: out.push({ type: 'loadDroppedData', placeholder: a[k], index: a[k + 1], kinds: a[k + 2] }); k += 3; break;
      case Effect.announce: { const len = a[k++]; out.push({ type: 'announce', text: utf8.decode(Uint8Array.from(a.subarray(k, k + len))) }); k += len; break; }
      case Effect.dragBegan: out.push({ type: 'dragBegan', items: ids() }); break;
      case Effect.proposalChanged:
        out.push({ type: 'proposalChanged', operation: operation[a[k]], intent: a[k + 1], target: a[k + 2], section: a[k + 3], item: a[k + 4], outside: a[k + 5] });
        k += 6; break;
      case Effect.dragEnded: { const op = operation[a[k++]]; out.push({ type: 'dragEnded', operation: op, items: ids() }); break; }
      case Effect.itemTapped: out.push({ type: 'itemTapped', id: a[k++] }); break;
      default: throw new Error(`unknown effect ${code}`);
    }
  }
  return out;
}

/// Decodes Op.controllerRender's answer.
export function readRender(a) {
  let k = 1;
  const r = { width: a[k++], height: a[k++], offsetX: a[k++], offsetY: a[k++], phase: phase[a[k++]],
    canUndo: a[k++] === 1, canRedo: a[k++] === 1, cells: [], targets: [] };
  for (let n = a[k++]; n > 0; n--) {
    r.cells.push({ kind: cellKind[a[k]], id: a[k + 1], section: a[k + 2], item: a[k + 3], x: a[k + 4], y: a[k + 5],
      w: a[k + 6], h: a[k + 7], scale: a[k + 8], opacity: a[k + 9], z: a[k + 10], flags: a[k + 11] });
    k += 12;
  }
  for (let n = a[k++]; n > 0; n--) { r.targets.push({ id: a[k], targeted: a[k + 1] === 1, operation: operation[a[k + 2]] }); k += 3; }
  return r;
}
