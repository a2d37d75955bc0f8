// The virtualised grid: the engine lays out (engine.wasm), this module only places a
// recycled pool of elements with transforms at the frames the engine answers for the
// visible rect plus a margin. Nothing here measures the DOM or decides arrangement.
import { Op, Kind } from './engine.js';
import { CellPool } from './pool.js';

const MARGIN = 600; // px above and below the viewport kept rendered

export class GridView {
  constructor(engine, scroller, content) {
    this.engine = engine;
    this.scroller = scroller;
    this.content = content;
    this.pool = new CellPool(content);
    this.sections = [];        // [{id, title, items: [item]}]
    this.kind = 'waterfall';
    this.columns = 4;
    this.handle = -1;
    this.live = new Map();     // key → {el, kind}
    this.progress = new Map(); // item id → upload fraction
    this.decorate = null;      // (item, indexPath) → {x, y, scale, opacity, z, cls} | null (drag preview)
    this.showsGapCells = false;
    this.contentHeight = 0;
    this._frame = 0;
    scroller.addEventListener('scroll', () => this.schedule(), { passive: true });
    new ResizeObserver(() => this.relayout()).observe(scroller);
  }

  get width() { return this.scroller.clientWidth; }

  kindInput(columns = this.columns, kind = this.kind) {
    const inner = Math.max(1, this.width - 16);
    switch (kind) {
      case 'grid': return [Kind.grid, columns, 1];
      case 'justified': return [Kind.justified, Math.max(40, (inner / columns) * 0.8), 0];
      default: return [Kind.waterfall, columns, 0];
    }
  }

  /// Replaces the whole model and lays it out again (O(n) in the engine).
  setSections(sections) {
    this.sections = sections;
    this.relayout();
  }

  relayout() {
    if (this.handle >= 0) this.engine.call(Op.layoutDestroy, [this.handle]);
    const [kind, a, b] = this.kindInput();
    const created = this.engine.call(Op.layoutCreate,
      [kind, a, b, this.width, 44, 8, 8, 8, 8, 6, 6, this.showsGapCells ? 1 : 0, 0.5]);
    this.handle = created[1];
    const counts = this.sections.map((s) => s.items.length);
    const total = counts.reduce((x, y) => x + y, 0);
    const input = new Float64Array(2 + counts.length + total);
    input[0] = this.handle; input[1] = counts.length;
    input.set(counts, 2);
    let k = 2 + counts.length;
    for (const s of this.sections) for (const it of s.items) input[k++] = it.aspect || 1;
    const answer = this.engine.callView(Op.layoutPrepare, input);
    this.setContentHeight(answer[2]);
    this.render();
  }

  setContentHeight(h) {
    this.contentHeight = h;
    this.content.style.height = `${Math.ceil(h)}px`;
  }

  setGapCells(shows) {
    if (shows === this.showsGapCells) return;
    this.showsGapCells = shows;
    const answer = this.engine.call(Op.layoutSetGapCells, [this.handle, shows ? 1 : 0]);
    this.setContentHeight(answer[2]);
    this.render();
  }

  /// Pinch / slider / Ctrl+wheel: a new column count keeping the item under `anchorY`
  /// (viewport coordinates) where it is on screen (F22).
  setColumns(columns, anchorX = this.width / 2, anchorY = this.scroller.clientHeight / 2) {
    columns = Math.max(1, Math.min(12, Math.round(columns)));
    if (columns === this.columns) return;
    this.columns = columns;
    const [kind, a, b] = this.kindInput(columns);
    const answer = this.engine.call(Op.layoutReconfigure,
      [this.handle, kind, a, b, anchorX, anchorY, 0, this.scroller.scrollTop]);
    if (answer[0] !== 0) { this.relayout(); return; }
    this.setContentHeight(answer[4]);
    this.scroller.scrollTop = Math.max(0, answer[2]);
    this.render();
  }

  setKind(kind) { this.kind = kind; this.relayout(); }

  item(section, index) { return this.sections[section]?.items[index]; }

  indexPathOf(id) {
    for (let s = 0; s < this.sections.length; s++) {
      const i = this.sections[s].items.findIndex((it) => it.id === id);
      if (i >= 0) return [s, i];
    }
    return null;
  }

  /// Content coordinates of a client point.
  toContent(clientX, clientY) {
    const r = this.scroller.getBoundingClientRect();
    return [clientX - r.left, clientY - r.top + this.scroller.scrollTop];
  }

  hitTest(clientX, clientY) {
    const [x, y] = this.toContent(clientX, clientY);
    const a = this.engine.call(Op.layoutHitTest, [this.handle, x, y]);
    return a[1] >= 0 ? [a[1], a[2]] : null;
  }

  schedule() {
    if (this._frame) return;
    this._frame = requestAnimationFrame(() => { this._frame = 0; this.render(); });
  }

  /// Places the elements of everything in the viewport ± MARGIN. O(log n + visible).
  render() {
    const top = this.scroller.scrollTop - MARGIN;
    const height = this.scroller.clientHeight + 2 * MARGIN;
    const ans = this.engine.callView(Op.layoutAttributes, [this.handle, 0, top, this.width, height]);
    const count = ans[1];
    const seen = new Set();
    const attrs = [];
    for (let k = 0; k < count; k++) {
      const o = 2 + k * 7;
      attrs.push([ans[o], ans[o + 1], ans[o + 2], ans[o + 3], ans[o + 4], ans[o + 5], ans[o + 6]]);
    }
    for (const [kind, s, i, x, y, w, h] of attrs) {
      const section = this.sections[s];
      if (!section) continue;
      let key, poolKind, item = null;
      if (kind === 0) {
        item = section.items[i];
        if (!item) continue;
        key = `i${item.id}`; poolKind = 'cell';
      } else if (kind === 1) { key = `h${section.id}`; poolKind = 'header'; }
      else { key = `g${section.id}`; poolKind = 'gap'; }
      seen.add(key);
      let entry = this.live.get(key);
      const fresh = !entry;
      if (fresh) {
        entry = { el: this.pool.take(poolKind), kind: poolKind };
        this.live.set(key, entry);
      }
      const el = entry.el;
      let tx = x, ty = y, scale = 1, opacity = '', z = '';
      let cls = poolKind;
      if (item) {
        this.pool.bind(el, item, this.progress.get(item.id));
        el.dataset.section = s; el.dataset.item = i;
        const d = this.decorate?.(item, s, i, x, y, w, h);
        if (d) {
          if (d.x != null) { tx = d.x; ty = d.y; }
          scale = d.scale ?? 1;
          opacity = d.opacity != null ? String(d.opacity) : '';
          z = d.z != null ? String(d.z) : '';
          if (d.cls) cls += ' ' + d.cls;
        }
        if (this.selection?.has(item.id)) cls += ' selected';
        if (this.focusedID === item.id) cls += ' focused';
      } else if (poolKind === 'header') {
        el.textContent = section.title;
      } else if (this.hoveredGap === s) cls += ' hovered';
      if (fresh) cls += ' no-anim';
      if (el.className !== cls) el.className = cls;
      const transform = scale === 1 ? `translate3d(${tx}px,${ty}px,0)` : `translate3d(${tx}px,${ty}px,0) scale(${scale})`;
      if (el.style.transform !== transform) el.style.transform = transform;
      const wpx = `${w}px`, hpx = `${h}px`;
      if (el.style.width !== wpx) el.style.width = wpx;
      if (el.style.height !== hpx) el.style.height = hpx;
      if (el.style.opacity !== opacity) el.style.opacity = opacity;
      if (el.style.zIndex !== z) el.style.zIndex = z;
    }
    for (const [key, entry] of this.live) {
      if (!seen.has(key)) { this.pool.give(entry.kind, entry.el); this.live.delete(key); }
    }
    // Fresh cells were placed without animation; later moves animate.
    requestAnimationFrame(() => {
      for (const { el } of this.live.values()) if (el.classList.contains('no-anim')) el.classList.remove('no-anim');
    });
  }

  elementFor(id) { return this.live.get(`i${id}`)?.el ?? null; }
}
