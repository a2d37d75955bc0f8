// The toolbar: layout, columns, snapping and drop mode (the view sheet; remembered per user and
// gallery, settings.js), undo and redo (announced), sorting a section, adding images (upload,
// Add URL); and the gestures that do what its controls do — Ctrl+wheel and a two-finger pinch
// change the column count (F22), a paste adds what was copied (B6).
import { EventType, ReorderMode, Snapping, CellFlag } from './protocol.js';
import { defaultColumns } from './settings.js';
import { ask } from './ui.js';

const $ = (id) => document.getElementById(id);

export class Toolbar {
  /// deps: controller (the engine's), view (the grid), drag() (the page's Drag),
  /// sortSection(by) ("date" or "name": the section in focus, sorted), settings (settings.js),
  /// gallery() (the open gallery's id), announce(text), chrome (chrome.js), title(id).
  constructor(deps) {
    this.deps = deps;
    this.c = deps.controller;
    this.scroller = $('scroller');
    this._wheel = 0;
  }

  wire() {
    const c = this.c, drag = this.deps.drag;
    $('layout-kind').addEventListener('change', (e) => { c.kind = e.target.value; c.configure(); this.deps.view.render(); this.saveView(); });
    $('columns').addEventListener('input', (e) => this.pinch(Number(e.target.value), c.width / 2, this.scroller.clientHeight / 2, { slider: true }));
    $('snapping').addEventListener('change', () => { this.applySnapping(); this.saveView(); });
    $('snap-limit').addEventListener('change', () => { this.applySnapping(); this.saveView(); });
    $('drop-mode').addEventListener('change', (e) => { drag()?.setMode(e.target.value); this.saveView(); });
    $('theme').addEventListener('click', () => {
      const dark = getComputedStyle(document.documentElement).getPropertyValue('--bg').trim() === '#111113';
      document.documentElement.dataset.theme = dark ? 'light' : 'dark';
      localStorage.setItem('theme', document.documentElement.dataset.theme);
      this.deps.chrome?.themeLabel();
    });
    $('undo').addEventListener('click', () => drag()?.undo());
    $('redo').addEventListener('click', () => drag()?.redo());
    $('sort-section').addEventListener('change', (e) => {
      const by = e.target.value;
      e.target.value = '';
      if (by) this.deps.sortSection(by);
    });
    // Add from a link: the link asked in a dialog that stays open until the server took it, and
    // says there why it did not (a private address, not an image link…).
    $('add-url').addEventListener('click', () => ask({
      title: 'Add from a link', label: 'Link to an image', type: 'url', placeholder: 'https://example.com/photo.jpg',
      submit: 'Add', returnTo: $('add-open'), className: 'add-url-dialog',
      validate: (v) => {
        if (!v) return 'Paste or type the link of an image.';
        let u;
        try { u = new URL(v); } catch { return 'That is not a link: it starts with https:// or http://.'; }
        return /^https?:$/.test(u.protocol) ? null : 'Only http and https links can be added.';
      },
      run: (url) => new Promise((resolve, reject) => {
        if (!drag()) { reject(new Error('The gallery is still loading: try again in a moment.')); return; }
        drag().add([{ url, report: (message) => (message ? reject(new Error(message)) : resolve()) }]);
      }),
    }));
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

  /// A new column count keeping the item under (x, y) in place (F22). A tile held (lifted
  /// with Space, or by a hand) is the anchor instead, wherever the pointer is: what is held
  /// stays in view (issue 13). The slider anchors on the focused tile when it is on screen.
  pinch(columns, x, y, { slider = false } = {}) {
    columns = Math.max(1, Math.min(12, Math.round(columns)));
    if (columns === this.c.columns) return;
    const r = this.deps.view.last, top = this.scroller.scrollTop, height = this.scroller.clientHeight;
    const held = r?.cells.find((cell) => cell.kind === 'item' && (cell.flags & CellFlag.lifted))
      ?? (slider ? r?.cells.find((cell) => cell.kind === 'item' && (cell.flags & CellFlag.focused)
        && cell.y + cell.h > top && cell.y < top + height) : null);
    if (held) { x = held.x + held.w / 2; y = Math.min(height - 1, Math.max(0, held.y + held.h / 2 - top)); }
    const offset = this.c.pinch(columns, x, y);
    this.showColumns(columns);
    this.saveView();
    this.deps.view.render();
    if (offset != null) {
      this.scroller.scrollTop = offset;
      // Tell the engine now, not on the next scroll event: the next step of a quick pinch
      // anchors against this offset.
      this.deps.drag()?.run(this.c.event(EventType.scroll, [0, this.scroller.scrollTop, performance.now() / 1000]));
    }
    this.deps.view.render();
    if (held) this.keepInView(held.id);
  }

  /// Scrolls the grid so the tile `id` (drawn, maybe scaled up as a lifted one) is wholly in
  /// view, with a little room; its top when it is taller than the view.
  keepInView(id) {
    const cell = this.deps.view.last?.cells.find((x) => x.kind === 'item' && x.id === id);
    if (!cell) return;
    const grow = (cell.h * ((cell.scale || 1) - 1)) / 2, room = 12;
    const top = cell.y - grow - room, bottom = cell.y + cell.h + grow + room;
    const now = this.scroller.scrollTop, height = this.scroller.clientHeight;
    let to = now;
    if (bottom - top > height || top < now) to = Math.max(0, top);
    else if (bottom > now + height) to = bottom - height;
    if (Math.abs(to - now) < 1) return;
    this.scroller.scrollTop = to;
    this.deps.drag()?.run(this.c.event(EventType.scroll, [0, this.scroller.scrollTop, performance.now() / 1000]));
    this.deps.view.render();
  }

  showColumns(columns) {
    $('columns').value = columns;
    $('columns-value').textContent = String(columns);
  }

  /// The snapping menu as the engine's code: view-aligned takes its limit from the second menu.
  snappingName() {
    const name = $('snapping').value;
    return name === 'viewAligned' ? $('snap-limit').value : name;
  }

  applySnapping() {
    const aligned = $('snapping').value === 'viewAligned';
    $('snap-limit').hidden = !aligned;
    $('snap-limit-label').hidden = !aligned;
    this.deps.drag()?.setSnapping(this.snappingName());
  }

  /// The view remembered for `gallery` (or the defaults, columns from the width), set on the
  /// controller and the controls before the gallery loads.
  restoreView(gallery) {
    const v = this.deps.settings.view(gallery);
    const c = this.c;
    const kinds = ['grid', 'flow', 'waterfall', 'justified'];
    c.kind = kinds.includes(v.kind) ? v.kind : 'waterfall';
    const columns = Number(v.columns);
    c.columns = Number.isInteger(columns) && columns >= 1 && columns <= 12 ? columns : defaultColumns(this.scroller.clientWidth || innerWidth);
    $('layout-kind').value = c.kind;
    this.showColumns(c.columns);
    $('snapping').value = ['none', 'paging', 'viewAligned', 'edges'].includes(v.snapping) ? v.snapping : 'none';
    $('snap-limit').value = ['viewAlignedAutomatic', 'viewAlignedAlways', 'viewAlignedNever'].includes(v.limit) ? v.limit : 'viewAlignedAutomatic';
    $('drop-mode').value = v.mode === 'swap' ? 'swap' : 'insert';
    // The controller takes these when the gallery loads (Controller.load).
    c.mode = ReorderMode[$('drop-mode').value];
    c.snapping = Snapping[this.snappingName()] ?? Snapping.none;
    const aligned = $('snapping').value === 'viewAligned';
    $('snap-limit').hidden = !aligned;
    $('snap-limit-label').hidden = !aligned;
  }

  saveView() {
    const c = this.c;
    this.deps.settings.saveView(this.deps.gallery(), { kind: c.kind, columns: c.columns, snapping: $('snapping').value,
      limit: $('snap-limit').value, mode: $('drop-mode').value });
  }

  /// Undo and redo enabled as the engine says; an undo or redo (`e`: its commit effect) is
  /// announced to screen readers.
  historyChanged(e) {
    const r = this.deps.view.last;
    if (r) {
      $('undo').disabled = !r.canUndo;
      $('redo').disabled = !r.canRedo;
    }
    if (e && (e.kind === 'undo' || e.kind === 'redo')) this.announceHistory(e);
  }

  announceHistory(e) {
    const ids = new Set(), verbs = new Set();
    const VERB = { move: 'moved', swap: 'swapped', copy: 'copied', trash: 'deleted', restore: 'restored' };
    for (const op of e.operations ?? []) {
      verbs.add(VERB[op.op] ?? 'changed');
      for (const id of op.items ?? [op.a, op.b]) if (id != null) ids.add(id);
    }
    const head = e.kind === 'undo' ? 'Undone' : 'Redone';
    if (!ids.size) { this.deps.announce(`${head}`); return; }
    const first = this.deps.title([...ids][0]);
    const what = ids.size === 1 ? `“${first}”` : `${ids.size} photos`;
    this.deps.announce(`${head}: ${what} ${[...verbs].join(' and ')}`);
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
