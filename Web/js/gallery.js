// The page's copy of one gallery's data: item JSON by id, section titles, the version. The
// arrangement (which item is where) is the engine's: a loaded gallery's order is handed to it
// once, and the server's changes (answers to our batches, the live stream, catch-up diffs) are
// applied by it alone (app.follow); this module keeps the data beside the ids the engine orders.

const CHECK_LIMIT = 32;  // items the engine is asked about after our own batch

export class GalleryModel {
  constructor() {
    this.id = null;
    this.name = '';
    this.version = 0;
    this.count = 0;
    this.items = new ItemTable(); // id → item data (get, has, set)
    this.titles = new Map();      // section id → title
    this.sectionList = [];        // the server's sections in its order: [{id, title}]
    this._arrangement = null;
  }

  /// Loads a full snapshot (nested item JSON: the live stream's or a catch-up's).
  load(snapshot) {
    this._begin(snapshot.gallery, snapshot.version);
    const all = snapshot.sections.flatMap((s) => s.items);
    for (const it of all) this.items.set(it.id, it);
    this._arrangement = this._arrange(snapshot.sections.map((s) => ({ id: s.id, title: s.title, count: s.items.length })),
      all.map((it) => it.id), all.map((it) => it.version), all.map((it) => it.aspect));
  }

  /// Loads the columnar snapshot (GET /api/galleries/:id/columns, docs/API.md; the binary form
  /// from api.columns, or the JSON form): the same content as a full snapshot (without content
  /// hashes) in a tenth of the bytes. The columns stay as they came; an item's object is made
  /// when it is first asked for (ItemTable).
  loadColumns(c) {
    this._begin(c.gallery, c.version);
    this.items.useColumns(c);
    this._arrangement = this._arrange(c.sections, c.id, c.contentVersion, c.aspect);
  }

  _begin(gallery, version) {
    this.id = gallery.id;
    this.name = gallery.name;
    this.version = version;
    this.items.clear();
    this.titles.clear();
  }

  _arrange(sections, ids, versions, aspects) {
    this.sectionList = sections.map((s) => ({ id: s.id, title: s.title }));
    for (const s of sections) this.titles.set(s.id, s.title);
    this.count = ids.length;
    return { sections: sections.map((s) => ({ id: s.id, title: s.title, count: s.count })), ids, versions, aspects };
  }

  /// The arrangement just loaded, once, as columns in order — {sections: [{id, title, count}],
  /// ids, versions, aspects} — the engine takes it and from then on holds the order;
  /// the page keeps only the item data.
  takeArrangement() {
    const a = this._arrangement;
    this._arrangement = null;
    return a;
  }

  /// Takes a ChangesJSON ({fromVersion, toVersion, stages, items, sections}): the item data,
  /// titles and name it carries. The arrangement change itself is the engine's to apply
  /// (`app.follow`); this answers what it needs: {skipped} when we had the change already (our
  /// own batch, seen on the live stream first), false when it does not follow our version (the
  /// caller catches up), else {stages, items, sections, sources, check} — sources: the ids the
  /// first stage takes away (the engine checks it holds them there); check: for one stage, where
  /// every arriving item ends and which ids are gone, so the engine can say whether it already
  /// shows the change (our own batch). Both come from the ids each stage names (docs/API.md).
  apply(changes) {
    if (changes.toVersion <= this.version) return { skipped: true }; // already have it (our own batch)
    if (changes.fromVersion !== this.version) return false;
    const stages = changes.stages ?? [];
    for (const it of changes.items ?? []) this.items.set(it.id, it);
    if (changes.sections) {
      this.sectionList = changes.sections.map((s) => ({ id: s.id, title: s.title }));
      for (const s of changes.sections) this.titles.set(s.id, s.title);
    }
    if (changes.name != null) this.name = changes.name; // a rename in another window
    if (stages.length) this.count = stages.at(-1).itemCountsAfter.reduce((a, b) => a + b, 0);
    this.version = changes.toVersion;
    return { stages, items: changes.items ?? [], sections: changes.sections ?? [], sources: sourcesOf(stages[0]),
      check: stages.length === 1 ? this._check(stages[0]) : null };
  }

  /// What the engine shows when it already made this one-stage change itself: the counts, every
  /// arriving item at its place, every reloaded item with its version, none of the deleted.
  _check(st) {
    if (!st.deletedIDs || !st.movedIDs || !st.reloadedIDs) return null;
    const placed = st.itemInserts.map((i) => [i.id, i.at[0], i.at[1], i.version]);
    for (const [k, m] of st.itemMoves.entries()) {
      const version = this.items.get(st.movedIDs[k])?.version;
      if (version == null) return null;
      placed.push([st.movedIDs[k], m.to[0], m.to[1], version]);
    }
    st.itemReloads.forEach((r, k) => placed.push([st.reloadedIDs[k], -1, -1, r.version]));
    if (placed.length > CHECK_LIMIT) return null;
    const arrived = new Set(placed.map((p) => p[0]));
    return { counts: st.itemCountsAfter, placed, absent: st.deletedIDs.filter((id) => !arrived.has(id)) };
  }
}

/// The most item changes one slice of a long catch-up hands the engine: its in-place limit
/// (GridController.liveChangesIncrementalLimit). Past it the engine applies a changeset to a copy
/// of the whole arrangement, stage after stage — O(n) a stage: a window back after 10,000 versions
/// of a 1M gallery would wait minutes in one task.
export const SLICE_CHANGES = 32;

const changeCount = (st) => st.itemDeletes.length + st.itemInserts.length + st.itemMoves.length + st.itemReloads.length;
const changesSections = (st) => st.sectionDeletes.length || st.sectionInserts.length || st.sectionMoves.length;

/// A change `GalleryModel.apply` answered that is too long for one engine call (more than one
/// stage, more than SLICE_CHANGES item changes), cut into slices as it is applied (`next`): runs of
/// stages of item changes of at most `limit` changes in all (at least one stage), and a stage with
/// section changes alone. Each slice is a change of its own for the engine (sources: its first
/// stage's; items: those its stages insert or reload). Null when the change is one slice already.
export class Slicer {
  static of(applied) {
    const stages = applied.stages;
    if (stages.length < 2) return null;
    let total = 0;
    for (const st of stages) total += changeCount(st);
    return total <= SLICE_CHANGES ? null : new Slicer(applied);
  }

  constructor(applied) {
    this.applied = applied;
    this.at = 0;
    this.byId = null;
  }

  get done() { return this.at >= this.applied.stages.length; }

  next(limit) {
    const stages = this.applied.stages;
    const from = this.at;
    let n = 0;
    while (this.at < stages.length) {
      const st = stages[this.at];
      const k = changeCount(st);
      if (this.at > from && (changesSections(st) || n + k > limit)) break;
      this.at++;
      n += k;
      if (changesSections(st)) break;
    }
    const slice = stages.slice(from, this.at);
    const ids = [];
    for (const st of slice) {
      for (const i of st.itemInserts) ids.push(i.id);
      for (const sec of st.sectionInserts) ids.push(...sec.items);
      for (const id of st.reloadedIDs ?? []) ids.push(id);
    }
    if (ids.length) this.byId ??= new Map(this.applied.items.map((it) => [it.id, it]));
    // The section titles (the change's last) go to the engine with the first slice only.
    const sections = from === 0 ? this.applied.sections : null;
    return { stages: slice, items: ids.map((id) => this.byId.get(id)).filter(Boolean), sections, sources: sourcesOf(slice[0]), check: null };
  }
}

/// The ids at the first stage's deletes, then at its move sources (null: not named).
function sourcesOf(first) {
  if (!first) return [];
  if (!first.deletedIDs || !first.movedIDs) return null;
  return [...first.deletedIDs, ...first.movedIDs];
}

/// The flat encoding of stages for the engine (docs/engine-bridge.md, "diff" answers).
export function encodeStages(stages) {
  const out = [stages.length];
  for (const st of stages) {
    out.push(st.sectionDeletes.length, ...st.sectionDeletes);
    out.push(st.sectionInserts.length);
    for (const s of st.sectionInserts) out.push(s.index, s.id, s.items.length, ...s.items, ...s.versions);
    out.push(st.sectionMoves.length);
    for (const m of st.sectionMoves) out.push(m.from[0], m.to[0]);
    out.push(st.itemDeletes.length);
    for (const d of st.itemDeletes) out.push(d[0], d[1]);
    out.push(st.itemInserts.length);
    for (const i of st.itemInserts) out.push(i.at[0], i.at[1], i.id, i.version);
    out.push(st.itemMoves.length);
    for (const m of st.itemMoves) out.push(m.from[0], m.from[1], m.to[0], m.to[1]);
    out.push(st.itemReloads.length);
    for (const r of st.itemReloads) out.push(r.at[0], r.at[1], r.version);
    out.push(st.itemCountsAfter.length, ...st.itemCountsAfter);
  }
  return out;
}

/// Item data by id. A columnar first load stays as columns: an item's object (ColumnItem) is
/// made the first time it is asked for, so a gallery of a million items does not make a million
/// objects up front. Lookups search runs of 65,536 positions, each sorted once by id (a packed
/// Float64Array: id × 2^21 + position) — the first run at once, the others in idle slices; a
/// run not sorted yet is scanned. Items the server sent as JSON (changes, a nested snapshot) and
/// objects already made are kept in a Map, which wins.
export class ItemTable {
  constructor() { this.clear(); }

  clear() {
    this._made = new Map();
    this._c = null;
    this._runs = [];
    this._generation = (this._generation ?? 0) + 1;
  }

  useColumns(c) {
    this.clear();
    // The JSON form's title and state columns read like the binary form's (api.decodeColumns).
    c.titleAt ??= (k) => c.title[k];
    c.stateAt ??= (k) => c.state.charCodeAt(k);
    this._c = c;
    const n = c.id.length;
    // Packing needs positions below 2^21 and ids below 2^32; otherwise every run is scanned.
    // (A loop, not `every` with a callback: at a million ids, cold, that was up to ~50 ms.)
    let packable = n <= POSITIONS;
    if (packable && !(c.id instanceof Uint32Array)) for (let k = 0; k < n && packable; k++) packable = c.id[k] < 2 ** 32;
    for (let start = 0; start < n; start += RUN) this._runs.push({ start, end: Math.min(n, start + RUN), keys: null });
    if (!packable || !this._runs.length) return;
    this._sort(this._runs[0]);
    const generation = this._generation;
    let r = 1;
    const step = (deadline) => {
      if (this._generation !== generation) return;
      // One run (~2–5 ms) a callback: an idle period can be 50 ms long, and several runs in
      // one delayed the frames right after a million-item gallery became ready.
      if (deadline.timeRemaining() > 8) this._sort(this._runs[r++]);
      if (r < this._runs.length) idle(step);
    };
    if (this._runs.length > 1) idle(step);
  }

  _sort(run) {
    const ids = this._c.id;
    const keys = new Float64Array(run.end - run.start);
    for (let k = run.start; k < run.end; k++) keys[k - run.start] = ids[k] * POSITIONS + k;
    run.keys = keys.sort();
  }

  /// The position of `id` in the columns, or −1.
  _find(id) {
    const ids = this._c?.id;
    if (!ids) return -1;
    for (const run of this._runs) {
      const keys = run.keys;
      if (!keys) {
        for (let k = run.start; k < run.end; k++) if (ids[k] === id) return k;
        continue;
      }
      let lo = 0, hi = keys.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const v = Math.floor(keys[mid] / POSITIONS);
        if (v < id) lo = mid + 1; else if (v > id) hi = mid - 1; else return keys[mid] - v * POSITIONS;
      }
    }
    return -1;
  }

  get(id) {
    const made = this._made.get(id);
    if (made !== undefined) return made;
    const k = this._find(id);
    if (k < 0) return undefined;
    const c = this._c;
    const item = new ColumnItem(id, c.titleAt(k), c.aspect[k], c.stateAt(k), c.contentVersion[k], c.width[k], c.height[k]);
    if (c.titlesIn === false) item.untitledAt = k; // its title follows (fillTitles)
    const extra = c.details[id];
    if (extra) { item.reason = extra.reason ?? null; item.sourceURL = extra.sourceURL ?? null; }
    this._made.set(id, item);
    return item;
  }

  has(id) { return this._made.has(id) || this._find(id) >= 0; }

  /// The titles of the items made before the columns' titles arrived (api.decodeColumns with
  /// `whole`), now that they have, unless other columns are in use by then. An item replaced
  /// since (a change's newer copy) keeps its own. Answers whether any was made untitled.
  fillTitles(c) {
    if (this._c !== c) return false;
    let filled = false;
    for (const item of this._made.values()) {
      if (item.untitledAt === undefined) continue;
      item.title = c.titleAt(item.untitledAt);
      item.untitledAt = undefined;
      filled = true;
    }
    return filled;
  }
  set(id, item) { this._made.set(id, item); }

  /// Every item (each made): for small galleries and tests.
  *values() {
    const seen = new Set();
    for (const id of this._c?.id ?? []) { seen.add(id); yield this.get(id); }
    for (const [id, item] of this._made) if (!seen.has(id)) yield item;
  }
}

const RUN = 65536;
const POSITIONS = 2 ** 21;
const idle = (f) => (globalThis.requestIdleCallback ?? ((g) => setTimeout(() => g({ timeRemaining: () => 20 }), 0)))(f);

const STATES = { 114: 'ready', 112: 'pending', 102: 'failed' }; // r p f

/// An item read from the columnar snapshot, with the fields of the server's ItemJSON but the
/// content hash: its images are named by id and content version (docs/API.md).
class ColumnItem {
  constructor(id, title, aspect, stateCode, version, width, height) {
    this.id = id;
    this.title = title;
    this.aspect = aspect;
    this.state = STATES[stateCode] ?? 'failed';
    this.version = version;
    this.fileHash = null;
    this.width = width || null;
    this.height = height || null;
    this.reason = null;
    this.sourceURL = null;
    this.trashed = false;
    this._thumbnails = undefined;
  }

  get thumbnails() {
    if (this._thumbnails === undefined) {
      const base = `/api/items/${this.id}/image/`, v = `?v=${this.version}`;
      this._thumbnails = this.state === 'ready'
        ? { grid: `${base}grid.jpg${v}`, detail: `${base}detail.jpg${v}`, original: `${base}original${v}` } : null;
    }
    return this._thumbnails;
  }
}

/// Whether a server change can have changed the trash: items left the arrangement or came
/// into it (trash, restore), sections went or came, or nothing in the arrangement changed (a
/// purge). A move or a swap cannot.
export function touchesTrash(changes) {
  const stages = changes?.stages;
  if (!stages?.length) return true;
  return stages.some((s) => s.itemDeletes?.length || s.itemInserts?.length || s.sectionDeletes?.length || s.sectionInserts?.length);
}
