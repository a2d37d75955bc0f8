// The page's copy of one gallery: sections of item JSON at a version. Staged changes from
// the server (answers to our batches, the live stream, catch-up diffs) are applied here
// where they touch (item changes) or by the engine (Op.snapshotApply, section changes);
// this module keeps the item data beside the ids the engine orders.
import { Op } from './protocol.js';

const SPLICE_LIMIT = 32; // items per section edited by splice; past it one pass rebuilds the section
const CHECK_LIMIT = 32;  // items the engine is asked about after our own batch

export class GalleryModel {
  constructor(engine) {
    this.engine = engine;
    this.id = null;
    this.name = '';
    this.version = 0;
    this.sections = [];      // [{id, title, items: [item]}]
    this.items = new Map();  // id → item
    this.titles = new Map(); // section id → title
  }

  load(snapshot) {
    this.id = snapshot.gallery.id;
    this.name = snapshot.gallery.name;
    this.version = snapshot.version;
    this.items.clear();
    this.titles.clear();
    this.sections = snapshot.sections.map((s) => {
      this.titles.set(s.id, s.title);
      for (const it of s.items) this.items.set(it.id, it);
      return { id: s.id, title: s.title, items: s.items };
    });
  }

  /// Loads the columnar snapshot (GET /api/galleries/:id/columns, docs/API.md): the same
  /// content as a full snapshot in a tenth of the bytes. Items become `ColumnItem`s, whose
  /// thumbnail URLs are made when first asked for.
  loadColumns(c) {
    this.id = c.gallery.id;
    this.name = c.gallery.name;
    this.version = c.version;
    this.items.clear();
    this.titles.clear();
    const urls = c.hashes.map((h) => `/api/images/${h}/`);
    let k = 0;
    this.sections = c.sections.map((s) => {
      this.titles.set(s.id, s.title);
      const items = new Array(s.count);
      for (let i = 0; i < s.count; i++, k++) {
        const h = c.hash[k];
        const item = new ColumnItem(c.id[k], s.id, c.title[k], c.aspect[k], c.state.charCodeAt(k), c.contentVersion[k],
          h >= 0 ? c.hashes[h] : null, h >= 0 ? urls[h] : null, c.width[k], c.height[k]);
        const extra = c.details[item.id];
        if (extra) { item.reason = extra.reason ?? null; item.sourceURL = extra.sourceURL ?? null; }
        items[i] = item;
        this.items.set(item.id, item);
      }
      return { id: s.id, title: s.title, items };
    });
  }

  get count() { return this.sections.reduce((n, s) => n + s.items.length, 0); }

  encode() {
    const out = [this.sections.length];
    for (const s of this.sections) {
      out.push(s.id, s.items.length);
      for (const it of s.items) out.push(it.id);
      for (const it of s.items) out.push(it.version);
    }
    return out;
  }

  static encodeStages(stages) {
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

  /// Applies a ChangesJSON ({fromVersion, toVersion, stages, items, sections}). Returns false
  /// when it does not follow our version or a stage does not apply: the caller reloads.
  /// Otherwise what the engine needs to follow (`app.follow`): {skipped} when we had it
  /// already (our own batch, seen on the live stream first), else {stages, items, sections,
  /// sources, check}. Stages of item changes are applied here, touching only the sections
  /// they name (a splice per item in a big section, a rebuild past SPLICE_LIMIT items);
  /// stages that change sections go through the engine (Op.snapshotApply, O(n)).
  apply(changes) {
    if (changes.toVersion <= this.version) return { skipped: true }; // already have it (our own batch)
    if (changes.fromVersion !== this.version) return false;
    const stages = changes.stages ?? [];
    const fresh = new Map();
    for (const it of changes.items ?? []) fresh.set(it.id, it);
    const itemsOnly = stages.every((st) => !st.sectionDeletes.length && !st.sectionInserts.length && !st.sectionMoves.length);
    const result = itemsOnly ? this._applyItemStages(stages, fresh) : this._applyWhole(stages, fresh);
    if (!result) return false;
    for (const it of changes.items ?? []) this.items.set(it.id, it);
    this.sections = result.sections;
    for (const s of changes.sections ?? []) {
      this.titles.set(s.id, s.title);
      const k = this.sections.findIndex((x) => x.id === s.id);
      if (k >= 0 && this.sections[k].title !== s.title) this.sections[k] = { ...this.sections[k], title: s.title };
    }
    if (changes.name != null) this.name = changes.name; // a rename in another window
    this.version = changes.toVersion;
    return { stages, items: changes.items ?? [], sections: changes.sections ?? [], sources: result.sources, check: result.check ?? null };
  }

  /// Item-only stages on copies of the touched sections (the model stays as it was when one
  /// does not apply). UIKit's order: reloads and leaving items by old index paths, then
  /// inserts and moves by new ones, in ascending order; counts must match.
  _applyItemStages(stages, fresh) {
    const sections = this.sections.slice();
    const sources = [];
    let check = null;
    for (const st of stages) {
      const n = sections.length;
      if (st.itemCountsAfter.length !== n) return null;
      const copied = new Set();
      const own = (s) => {
        if (!copied.has(s)) { sections[s] = { ...sections[s], items: sections[s].items.slice() }; copied.add(s); }
        return sections[s].items;
      };
      const at = (p) => (p[0] >= 0 && p[0] < n ? sections[p[0]].items[p[1]] : undefined);
      // Reloaded items take their new data in place (a reloaded item neither leaves nor moves).
      const reloaded = [];
      for (const r of st.itemReloads) {
        const old = at(r.at);
        if (!old) return null;
        const item = fresh.get(old.id) ?? Object.assign(Object.create(Object.getPrototypeOf(old)), old, { version: r.version });
        own(r.at[0])[r.at[1]] = item;
        reloaded.push([r.at[0], item]);
      }
      const leaving = [...st.itemDeletes, ...st.itemMoves.map((m) => m.from)];
      const gone = [];
      for (const p of leaving) {
        const item = at(p);
        if (!item) return null;
        if (st === stages[0]) sources.push(item.id); // the engine checks the first stage's
        gone.push(item);
      }
      const moved = gone.slice(st.itemDeletes.length);
      const arrivals = st.itemInserts.map((x) => ({ at: x.at, item: fresh.get(x.id) ?? this.items.get(x.id) }))
        .concat(st.itemMoves.map((m, k) => ({ at: m.to, item: moved[k] })));
      arrivals.sort((a, b) => (a.at[0] - b.at[0]) || (a.at[1] - b.at[1]));
      const bySection = new Map();
      for (const p of leaving) { if (!bySection.has(p[0])) bySection.set(p[0], []); bySection.get(p[0]).push(p[1]); }
      for (const [s, list] of bySection) {
        list.sort((a, b) => b - a);
        for (let k = 1; k < list.length; k++) if (list[k] === list[k - 1]) return null;
        const items = own(s);
        if (list.length <= SPLICE_LIMIT) { for (const i of list) items.splice(i, 1); continue; }
        const drop = new Set(list);
        sections[s].items = items.filter((_, i) => !drop.has(i));
      }
      const arriving = new Map();
      for (const a of arrivals) {
        if (!a.item || a.at[0] < 0 || a.at[0] >= n) return null;
        if (!arriving.has(a.at[0])) arriving.set(a.at[0], []);
        arriving.get(a.at[0]).push(a);
      }
      for (const [s, list] of arriving) {
        let items = own(s);
        if (list.length <= SPLICE_LIMIT) {
          for (const a of list) { if (a.at[1] > items.length) return null; items.splice(a.at[1], 0, a.item); }
          continue;
        }
        // Many arrivals: one merge pass instead of a splice each.
        const out = new Array(items.length + list.length);
        let k = 0, j = 0;
        for (let i = 0; i < out.length; i++) {
          if (k < list.length && list[k].at[1] === i) out[i] = list[k++].item; else if (j < items.length) out[i] = items[j++]; else return null;
        }
        sections[s].items = items = out;
      }
      for (let s = 0; s < n; s++) if (sections[s].items.length !== st.itemCountsAfter[s]) return null;
      // What the engine shows when it already made this change itself (our own batch):
      // the counts, every arriving and reloaded item at its place, none of the deleted.
      const placed = arrivals.map((a) => [a.item.id, a.at[0], a.at[1], a.item.version ?? 0]);
      if (placed.length + reloaded.length <= CHECK_LIMIT) {
        for (const [s, item] of reloaded) placed.push([item.id, s, sections[s].items.indexOf(item), item.version ?? 0]);
        const arrived = new Set(arrivals.map((a) => a.item.id));
        check = { counts: st.itemCountsAfter, placed, absent: gone.map((it) => it.id).filter((id) => !arrived.has(id)) };
      } else {
        check = null;
      }
    }
    // A check speaks for one stage only.
    return { sections, sources, check: stages.length === 1 ? check : null };
  }

  /// Stages that change sections: applied by the engine to an encoded copy. O(n).
  _applyWhole(stages, fresh) {
    const answer = this.engine.call(Op.snapshotApply, [...this.encode(), ...GalleryModel.encodeStages(stages)]);
    if (answer[0] !== 0) return null;
    const sections = [];
    let k = 1;
    const n = answer[k++];
    for (let s = 0; s < n; s++) {
      const id = answer[k++], count = answer[k++];
      const items = [];
      for (let i = 0; i < count; i++) {
        const item = fresh.get(answer[k + i]) ?? this.items.get(answer[k + i]);
        if (!item) return null; // the server did not send an inserted item's data
        items.push(item);
      }
      k += 2 * count;
      sections.push({ id, title: this.titles.get(id) ?? '', items });
    }
    // The ids at the first stage's deletes and move sources: the engine checks them.
    const sources = [];
    const first = stages[0];
    if (first) {
      for (const p of [...first.itemDeletes, ...first.itemMoves.map((m) => m.from)]) {
        const item = this.sections[p[0]]?.items[p[1]];
        if (!item) return null;
        sources.push(item.id);
      }
    }
    return { sections, sources, check: null };
  }

  indexPathOf(id) {
    for (let s = 0; s < this.sections.length; s++) {
      const i = this.sections[s].items.findIndex((it) => it.id === id);
      if (i >= 0) return [s, i];
    }
    return null;
  }
}

const STATES = { 114: 'ready', 112: 'pending', 102: 'failed' }; // r p f

/// An item read from the columnar snapshot, with the fields of the server's ItemJSON.
class ColumnItem {
  constructor(id, sectionId, title, aspect, stateCode, version, fileHash, base, width, height) {
    this.id = id;
    this.sectionId = sectionId;
    this.title = title;
    this.aspect = aspect;
    this.state = STATES[stateCode] ?? 'failed';
    this.version = version;
    this.fileHash = fileHash;
    this.width = width || null;
    this.height = height || null;
    this.reason = null;
    this.sourceURL = null;
    this.trashed = false;
    this._base = base;
    this._thumbnails = undefined;
  }

  get thumbnails() {
    if (this._thumbnails === undefined) {
      this._thumbnails = this.state === 'ready' && this._base
        ? { grid: this._base + 'grid.jpg', detail: this._base + 'detail.jpg', original: this._base + 'original' } : null;
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
