// The virtualised grid: the engine (controller.render) answers what to draw in the
// viewport ± a margin — frames, scale, opacity, z-order, flags — and this module only
// places a recycled pool of elements there with transforms. Nothing here measures the
// DOM or decides arrangement.
import { CellPool } from './pool.js';
import { CellFlag } from './protocol.js';

const MARGIN = 600; // px above and below the viewport kept rendered
// Faster than this (px/ms between two renders) the grid is flung: images not in the cache wait
// until it slows down, or stops for SETTLE ms (pool.js). Renders further apart than MOVING ms
// are not one movement (the first of a scroll is not taken for a fling); a gap between two renders
// counts as at most STALL ms, so a fling stays one while a busy main thread slows its frames.
const FAST = 2;
const SETTLE = 100;
const MOVING = 250;
const STALL = 50;

export class GridView {
  /// deps: controller (the engine's), model() (the page's GalleryModel), localItems (copies the
  /// server has not named yet), rendered(answer) (after each render: outside targets, counts).
  constructor(deps, scroller, content) {
    this.deps = deps;
    this.scroller = scroller;
    this.content = content;
    this.pool = new CellPool(content);
    // Drag previews float above the grid (a fixed layer over the scroller), so a lifted
    // 1.2× cell is not clipped by the scroller's edges.
    this.overlay = document.createElement('div');
    this.overlay.className = 'floating';
    document.body.appendChild(this.overlay);
    this.floating = new CellPool(this.overlay);
    this.live = new Map();      // key → {el, kind}
    this.progress = new Map();  // placeholder id → upload fraction
    this.selection = new Set();
    this.hidePreview = false;   // HTML5 drags show the browser's drag image instead
    this.last = null;           // the last render answer
    this._frame = 0;
    this._moved = { y: 0, t: 0 }; // where and when the last render was
    this._settleTimer = 0;
    this._settleGeneration = 0;
    this._holdImages = false;
  }

  /// The next render places the cells without starting their image loads: those start once the
  /// browser has made that frame (a gallery just opened: its grid is on screen sooner, and the
  /// loads, their answers and the first thumbnails' decode are not in the work of its first frame).
  /// `until(load)`, when given, says when instead: it calls `load` (the page's first load: once
  /// the page has said it is ready, app.start).
  holdImagesOneFrame(until = null) { this._holdImages = true; this._holdUntil = until; }

  schedule() {
    if (this._frame) return;
    this._frame = requestAnimationFrame(() => { this._frame = 0; this.render(); });
  }

  /// Renders now, instead of at the scheduled frame.
  flush() {
    if (this._frame) { cancelAnimationFrame(this._frame); this._frame = 0; }
    this.render();
  }

  itemData(id) {
    return this.deps.model().items.get(id) ?? this.deps.localItems.get(id) ?? null;
  }

  /// Places the elements of everything in the viewport ± MARGIN. O(log n + visible).
  render() {
    const c = this.deps.controller;
    if (c.handle < 0) return;
    const scrollTop = this.scroller.scrollTop, t = performance.now();
    const dt = t - this._moved.t;
    this.fast = dt < MOVING && Math.abs(scrollTop - this._moved.y) > FAST * Math.min(STALL, Math.max(8, dt));
    this._moved = { y: scrollTop, t };
    const top = Math.max(0, scrollTop - MARGIN);
    const r = c.render(0, top, c.width, this.scroller.clientHeight + 2 * MARGIN);
    this.last = r;
    if (r.phase !== 'idle') {
      const box = this.scroller.getBoundingClientRect();
      this.overlay.style.transform = `translate(${box.left}px,${box.top}px)`;
    }
    const h = `${Math.ceil(r.height)}px`;
    if (this.content.style.height !== h) this.content.style.height = h;
    // An empty gallery says what to do (the first screen of a gallery with items shows some).
    const empty = this.scroller.scrollTop === 0 && !r.cells.some((x) => x.kind === 'item' || x.kind === 'placeholder');
    if (this.scroller.classList.contains('empty') !== empty) this.scroller.classList.toggle('empty', empty);
    const seen = new Set();
    // The stack of a multi-item drag shows how many it carries on its top preview.
    this.carried = r.phase === 'lifted' || r.phase === 'dragging' ? r.cells.reduce((n, x) => n + (x.kind === 'preview'), 0) : 0;
    for (const cell of r.cells) {
      if (cell.kind === 'preview' && this.hidePreview) continue; // HTML5 drags show the browser's drag image
      seen.add(this.place(cell, r));
    }
    for (const [key, entry] of this.live) {
      if (!seen.has(key)) { entry.pool.give(entry.kind, entry.el); this.live.delete(key); }
    }
    if (this._holdImages) {
      // Until a task after the next frame's animation callbacks (renders in that frame's
      // callbacks hold them too; a hidden page makes no frames).
      if (this._holdImages === true) {
        this._holdImages = 'until the frame';
        const release = () => { this._holdImages = false; this._loadDeferred(); };
        const load = () => setTimeout(release, 0);
        if (this._holdUntil) { this._holdUntil(release); this._holdUntil = null; }
        else if (document.hidden) load(); else requestAnimationFrame(load);
      }
    } else if (this.pool.deferred.size) this._loadDeferred();
    this.deps.rendered(r);
    if (this.revealFocus) this.reveal(r);
  }

  /// Starts the deferred image loads now, or when a fling stops.
  _loadDeferred() {
    if (this.fast) this._awaitStop();
    else { this._settleGeneration++; this.pool.loadDeferred(); }
  }

  /// Starts the deferred image loads once the grid has stopped: SETTLE ms without a render, and
  /// at the next frame still where the last render saw it (a main thread slowed for a while
  /// mid-fling is not a stop: by that frame the scroll has moved on).
  _awaitStop() {
    const generation = ++this._settleGeneration;
    clearTimeout(this._settleTimer);
    this._settleTimer = setTimeout(() => requestAnimationFrame(() => {
      if (generation !== this._settleGeneration) return; // a render came meanwhile
      if (this.scroller.scrollTop !== this._moved.y) this._awaitStop();
      else this.pool.loadDeferred();
    }), SETTLE);
  }

  /// Binds (or recycles) the element of one cell and places it. Answers its key.
  place(cell, r) {
    const { key, poolKind, data } = this.describe(cell);
    let entry = this.live.get(key);
    const fresh = !entry;
    const pool = cell.kind === 'preview' ? this.floating : this.pool;
    if (fresh) { entry = { el: pool.take(poolKind), kind: poolKind, pool }; this.live.set(key, entry); }
    const el = entry.el;
    const section = String(cell.section);
    if (el.dataset.section !== section) el.dataset.section = section;
    let cls = poolKind;
    if (poolKind === 'cell') {
      this.pool.bind(el, data, cell.kind === 'placeholder' ? this.progress.get(cell.id) : undefined, this.fast || !!this._holdImages);
      el.dataset.id = cell.id;
      cls += this.cellClasses(cell);
      // Written only when they change (an expando remembers what the element shows).
      const selected = cell.kind === 'item' && this.selection.has(cell.id) ? 'true' : 'false';
      // A tile is an image in the grid's application role (issue 13, axe): its selection is
      // said by a description ("Selected"), as aria-selected is not an image's.
      if (el._selected !== selected) {
        el._selected = selected;
        if (selected === 'true') el.setAttribute('aria-describedby', 'photo-selected'); else el.removeAttribute('aria-describedby');
      }
      const count = cell.kind === 'preview' && this.carried > 1 && cell.z === 1000 ? String(this.carried) : '';
      if ((el._count ?? '') !== count) { el._count = count; if (count) el.dataset.count = count; else delete el.dataset.count; }
    } else if (poolKind === 'header') {
      const title = this.deps.model().titles.get(cell.id) ?? '';
      const span = el.firstChild;
      if (span.textContent !== title) { span.textContent = title; el.lastChild.setAttribute('aria-label', `Options for section ${title}`); }
      const id = String(cell.id);
      if (el.dataset.sectionId !== id) el.dataset.sectionId = id;
      if (this.renaming === cell.id) cls += ' renaming';
      if (this.headerSource === cell.id) cls += ' header-source';
    } else if (cell.flags & (CellFlag.dropTarget | CellFlag.hoveredTarget)) cls += ' hovered';
    // The floating preview follows the pointer; fresh cells appear in place: no easing.
    if (fresh || cell.kind === 'preview' || r.phase === 'dropping') cls += ' no-anim';
    if (el.className !== cls) el.className = cls;
    this.style(el, cell);
    return key;
  }

  /// The element key, pool and data of a cell.
  describe(cell) {
    let key, poolKind, data = null;
    switch (cell.kind) {
      case 'item': key = `i${cell.id}`; poolKind = 'cell'; data = this.itemData(cell.id); break;
      case 'preview':
        key = `v${cell.id}`; poolKind = 'cell'; data = this.itemData(cell.id); break;
      case 'placeholder': key = `p${cell.id}`; poolKind = 'cell';
        data = { id: cell.id, title: 'Loading…', state: 'pending', version: 0 }; break;
      case 'header': key = `h${cell.section}`; poolKind = 'header'; break;
      default: key = `g${cell.section}`; poolKind = 'gap';
    }
    if (poolKind === 'cell' && !data) data = { id: cell.id, title: '', state: 'pending', version: 0 };
    return { key, poolKind, data };
  }

  cellClasses(cell) {
    let cls = '';
    if (cell.kind === 'preview') cls += ' preview';
    if (cell.kind === 'placeholder') cls += ' placeholder';
    if (cell.flags & CellFlag.lifted) cls += ' lifted';
    if (cell.flags & CellFlag.liftedSource) cls += ' ghost';
    if (cell.flags & CellFlag.hoveredTarget) cls += ' target';
    if (cell.flags & CellFlag.focused) cls += ' focused';
    if (cell.flags & CellFlag.forbidden) cls += ' forbidden';
    if (cell.flags & CellFlag.tinted) cls += ' tinted';
    if (cell.kind === 'item' && this.selection.has(cell.id)) cls += ' selected';
    return cls;
  }

  /// Frame, scale, opacity and z-order, written only when they changed.
  style(el, cell) {
    const y = cell.kind === 'preview' ? cell.y - this.scroller.scrollTop : cell.y;
    const transform = cell.scale === 1 ? `translate3d(${cell.x}px,${y}px,0)`
      : `translate3d(${cell.x}px,${y}px,0) scale(${cell.scale})`;
    if (el.style.transform !== transform) el.style.transform = transform;
    const w = `${cell.w}px`, hh = `${cell.h}px`;
    if (el.style.width !== w) el.style.width = w;
    if (el.style.height !== hh) el.style.height = hh;
    const opacity = cell.opacity === 1 ? '' : String(cell.opacity);
    if (el.style.opacity !== opacity) el.style.opacity = opacity;
    const z = cell.z ? String(cell.z) : '';
    if (el.style.zIndex !== z) el.style.zIndex = z;
  }

  /// After a keyboard move: the focused tile (one step from the last, so within the rendered
  /// margin) is scrolled into view with a little room, as a list does for its selection.
  reveal(r) {
    this.revealFocus = false;
    const f = r.cells.find((x) => x.kind === 'item' && (x.flags & CellFlag.focused));
    if (!f) return;
    const room = 12, top = this.scroller.scrollTop, height = this.scroller.clientHeight;
    if (f.y < top + room) this.scroller.scrollTop = Math.max(0, f.y - room);
    else if (f.y + f.h > top + height - room) this.scroller.scrollTop = f.y + f.h - height + room;
  }

  elementFor(id) { return this.live.get(`i${id}`)?.el ?? null; }

  /// The tiles shown name their items by their titles again (a first visit's titles arrive after
  /// the grid opened: ItemTable.fillTitles).
  retitle() {
    for (const [key, { el, pool }] of this.live) {
      if (key[0] !== 'i' && key[0] !== 'v') continue; // items and their floating previews (describe)
      const item = this.itemData(Number(key.slice(1)));
      if (item) pool.retitle(el, item);
    }
  }
}
