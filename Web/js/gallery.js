// The page's copy of one gallery: sections of item JSON at a version. Staged changes from
// the server (answers to our batches, the live stream, catch-up diffs) are applied by the
// engine (Op.snapshotApply), which validates every stage; this module only keeps the item
// data beside the ids the engine orders.
import { Op } from './engine.js';

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
  /// when it does not follow our version or the engine refuses a stage: the caller reloads.
  apply(changes) {
    if (changes.toVersion <= this.version) return true; // already have it (our own batch)
    if (changes.fromVersion !== this.version) return false;
    for (const it of changes.items ?? []) this.items.set(it.id, it);
    for (const s of changes.sections ?? []) this.titles.set(s.id, s.title);
    if (changes.name != null) this.name = changes.name; // a rename in another window
    const answer = this.engine.call(Op.snapshotApply, [...this.encode(), ...GalleryModel.encodeStages(changes.stages)]);
    if (answer[0] !== 0) return false;
    const sections = [];
    let k = 1;
    const n = answer[k++];
    for (let s = 0; s < n; s++) {
      const id = answer[k++], count = answer[k++];
      const items = [];
      for (let i = 0; i < count; i++) {
        const item = this.items.get(answer[k + i]);
        if (!item) return false; // the server did not send an inserted item's data
        items.push(item);
      }
      k += 2 * count;
      sections.push({ id, title: this.titles.get(id) ?? '', items });
    }
    this.sections = sections;
    this.version = changes.toVersion;
    return true;
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
