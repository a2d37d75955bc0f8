// The toolbar: layout, columns, snapping and drop mode, undo and redo, sorting a section, adding
// images (upload, Add URL); and the gestures that do what its controls do — Ctrl+wheel and a
// two-finger pinch change the column count (F22), a paste adds what was copied (B6).
import { EventType } from './protocol.js';

const $ = (id) => document.getElementById(id);

export class Toolbar {
  /// deps: controller (the engine's), view (the grid), drag() (the page's Drag),
  /// sortSection(by) ("date" or "name": the section in focus, sorted).
  constructor(deps) {
    this.deps = deps;
    this.c = deps.controller;
    this.scroller = $('scroller');
    this._wheel = 0;
  }

  wire() {
    const c = this.c, drag = this.deps.drag;
    $('layout-kind').addEventListener('change', (e) => { c.kind = e.target.value; c.configure(); this.deps.view.render(); });
    $('columns').addEventListener('input', (e) => this.pinch(Number(e.target.value), c.width / 2, this.scroller.clientHeight / 2));
    $('snapping').addEventListener('change', (e) => drag()?.setSnapping(e.target.value));
    $('drop-mode').addEventListener('change', (e) => drag()?.setMode(e.target.value));
    $('theme').addEventListener('click', () => {
      const dark = getComputedStyle(document.documentElement).getPropertyValue('--bg').trim() === '#111113';
      document.documentElement.dataset.theme = dark ? 'light' : 'dark';
      localStorage.setItem('theme', document.documentElement.dataset.theme);
    });
    $('undo').addEventListener('click', () => drag()?.undo());
    $('redo').addEventListener('click', () => drag()?.redo());
    $('sort-section').addEventListener('change', (e) => {
      const by = e.target.value;
      e.target.value = '';
      if (by) this.deps.sortSection(by);
    });
    $('add-url').addEventListener('click', () => {
      const url = prompt('Image URL');
      if (url) drag()?.add([{ url }]);
    });
    $('upload').addEventListener('change', (e) => {
      drag()?.add([...e.target.files].map((file) => ({ file })));
      e.target.value = '';
    });
    this.wireWheelPinch();
    this.wireTouchPinch();
    this.wirePaste();
  }

  /// Ctrl+wheel and trackpad pinch (which Chromium reports as Ctrl+wheel) change the column
  /// count around the pointer.
  wireWheelPinch() {
    this.scroller.addEventListener('wheel', (e) => {
      if (!e.ctrlKey) return;
      e.preventDefault();
      this._wheel += e.deltaY;
      if (Math.abs(this._wheel) < 40) return;
      const r = this.scroller.getBoundingClientRect();
      this.pinch(this.c.columns + (this._wheel > 0 ? 1 : -1), e.clientX - r.left, e.clientY - r.top);
      this._wheel = 0;
    }, { passive: false });
  }

  /// Two fingers on a touch screen pinch the column count around their midpoint.
  wireTouchPinch() {
    const scroller = this.scroller;
    const touches = new Map();
    let start = 0;
    const spread = () => { const [a, b] = [...touches.values()]; return Math.hypot(a.x - b.x, a.y - b.y); };
    scroller.addEventListener('pointerdown', (e) => {
      if (e.pointerType !== 'touch') return;
      touches.set(e.pointerId, { x: e.clientX, y: e.clientY });
      if (touches.size === 2) start = spread();
    });
    scroller.addEventListener('pointermove', (e) => {
      if (!touches.has(e.pointerId)) return;
      touches.set(e.pointerId, { x: e.clientX, y: e.clientY });
      if (touches.size !== 2 || !start) return;
      const ratio = spread() / start;
      if (ratio > 1.25 || ratio < 0.8) {
        const [a, b] = [...touches.values()];
        const r = scroller.getBoundingClientRect();
        this.pinch(this.c.columns + (ratio > 1 ? -1 : 1), (a.x + b.x) / 2 - r.left, (a.y + b.y) / 2 - r.top);
        start = spread();
      }
    });
    const lift = (e) => { touches.delete(e.pointerId); if (touches.size < 2) start = 0; };
    scroller.addEventListener('pointerup', lift);
    scroller.addEventListener('pointercancel', lift);
  }

  /// A pasted image or image link goes after the focused item (else to the end).
  wirePaste() {
    document.addEventListener('paste', (e) => {
      const files = [...(e.clipboardData?.files ?? [])].filter((f) => f.type.startsWith('image/'));
      const text = e.clipboardData?.getData('text/plain') ?? '';
      if (!files.length && !/^https?:\/\//.test(text.trim())) return;
      e.preventDefault();
      this.deps.drag()?.add(files.length ? files.map((file) => ({ file })) : [{ url: text.trim() }]);
    });
  }

  /// A new column count keeping the item under (x, y) in place (F22).
  pinch(columns, x, y) {
    columns = Math.max(1, Math.min(12, Math.round(columns)));
    if (columns === this.c.columns) return;
    const offset = this.c.pinch(columns, x, y);
    $('columns').value = columns;
    this.deps.view.render();
    if (offset != null) {
      this.scroller.scrollTop = offset;
      // Tell the engine now, not on the next scroll event: the next step of a quick pinch
      // anchors against this offset.
      this.deps.drag()?.run(this.c.event(EventType.scroll, [0, this.scroller.scrollTop, performance.now() / 1000]));
    }
    this.deps.view.render();
  }

  historyChanged() {
    const r = this.deps.view.last;
    if (!r) return;
    $('undo').disabled = !r.canUndo;
    $('redo').disabled = !r.canRedo;
  }

  /// After each render: the trash can's look follows the engine's outside-target state (F21).
  rendered(r) {
    const t = r.targets.find((x) => x.id === 1);
    const trash = $('trash');
    trash.classList.toggle('hovered', !!t?.targeted && t.operation !== 'forbidden');
    trash.classList.toggle('forbidden', !!t?.targeted && t.operation === 'forbidden');
    this.historyChanged();
  }
}
