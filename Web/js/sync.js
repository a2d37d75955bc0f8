// What the engine committed, told to the server as one atomic batch of operations named by
// item ids (docs/API.md). Positions are given by neighbours ("after item 17"), so a batch
// still lands where the user dropped when someone else changed the gallery meanwhile.

/// Contiguous runs of inserted placements, in arrangement order: [{section, index, ids}].
function blocks(placements) {
  const sorted = [...placements].sort((a, b) => (a.section - b.section) || (a.index - b.index));
  const out = [];
  for (const p of sorted) {
    const last = out[out.length - 1];
    if (last && last.section === p.section && last.index + last.ids.length === p.index) last.ids.push(p.id);
    else out.push({ section: p.section, index: p.index, ids: [p.id] });
  }
  return out;
}

/// Where a block goes: after the item before it in the engine's arrangement, else first
/// in its section.
function anchor(arrangement, block) {
  const before = block.index > 0 ? arrangement(block.section, block.index - 1) : undefined;
  return before !== undefined ? { after: before } : { section: block.section, index: 0 };
}

/// The server operations for one engine commit effect; [] when the server has nothing to do.
/// `arrangement(sectionId, index)` answers the id of the engine's model item there (at the
/// commit), at least before every inserted placement.
export function operationsFor(commit, arrangement, known, trashed) {
  switch (commit.kind) {
    case 'move':
    case 'commitPlaceholder':
      return blocks(commit.inserted).map((b) => ({ op: 'move', items: b.ids, to: anchor(arrangement, b) }));
    case 'swap': {
      // One pair, or a run (several dragged items swap pairwise with the hovered item and
      // those after it): each item lands where its partner was.
      const at = new Map(commit.removed.map((p) => [`${p.section}/${p.index}`, p.id]));
      const ops = [];
      const paired = new Set();
      for (const p of commit.inserted) {
        const partner = at.get(`${p.section}/${p.index}`);
        if (partner === undefined || partner === p.id || paired.has(p.id) || paired.has(partner)) continue;
        paired.add(p.id).add(partner);
        ops.push({ op: 'swap', a: p.id, b: partner });
      }
      return ops;
    }
    case 'copy': {
      const first = blocks(commit.inserted)[0];
      return first ? [{ op: 'copy', items: commit.copiedFrom, to: anchor(arrangement, first) }] : [];
    }
    case 'delete':
      return [{ op: 'trash', items: commit.removed.map((p) => p.id).filter((id) => known(id)) }];
    case 'undo':
    case 'redo': {
      // Any arrangement change: items that stay move; items that come back are restored
      // from the trash first; items that go are trashed.
      const inserted = new Set(commit.inserted.map((p) => p.id));
      const removed = new Set(commit.removed.map((p) => p.id));
      const ops = [];
      const gone = [...removed].filter((id) => !inserted.has(id) && known(id));
      if (gone.length) ops.push({ op: 'trash', items: gone });
      const back = [...inserted].filter((id) => !removed.has(id) && trashed(id));
      if (back.length) ops.push({ op: 'restore', items: back });
      const placed = commit.inserted.filter((p) => known(p.id) || trashed(p.id));
      for (const b of blocks(placed)) ops.push({ op: 'move', items: b.ids, to: anchor(arrangement, b) });
      return ops;
    }
    default:
      return []; // placeholders come and go locally; live updates came from the server
  }
}
