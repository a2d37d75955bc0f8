// The page: wires the browser to the engine (engine.wasm) and the server. Arrangement is
// decided by the engine; this file moves data between them and the DOM.
import { Engine } from './engine.js';
import { EventType, CellFlag } from './protocol.js';
import { api, answer, ApiError } from './api.js';
import { GalleryModel, touchesTrash } from './gallery.js';
import { GridView } from './view.js';
import { Controller } from './controller.js';
import { LiveStream } from './live.js';
import { Detail } from './detail.js';
import { Drag } from './drag.js';
import { enter } from './auth.js';
import { Access } from './access.js';
import { installUserMenu } from './usermenu.js';
import { openShare } from './share.js';
import { Slideshow } from './slideshow.js';
import { startFileDrop } from './filedrop.js';
import { TrashPanel } from './trash.js';
import { Ingest } from './ingest.js';

const $ = (id) => document.getElementById(id);

export const app = {
  engine: null, model: null, controller: null, view: null, live: null, detail: null, drag: null,
  localItems: new Map(), // engine-made ids (copies not yet named by the server) → data to draw
  followed: { inPlace: 0, whole: 0 }, // server changes the engine followed in place / by a whole reload
  async start() {
    const theme = localStorage.getItem('theme');
    if (theme) document.documentElement.dataset.theme = theme;
    // index.html started the downloads (engine, gallery list, the gallery named in the
    // address); the engine compiles while the others arrive.
    const early = window.early ?? {};
    window.early = null;
    // Signed in (or a share link opened) first: the sign-in, setup and link pages are auth.js's.
    const session = (this.session = await enter(early));
    if (session.fresh) { early.galleries = null; early.columns = null; }
    if (session.link?.role === 'uploader') { await startFileDrop(session); return; }
    if (early.columns) {
      const columns = early.columns.response.then(answer);
      columns.catch(() => {}); // a failure surfaces when open() awaits it
      this._prefetch = { id: early.columns.id, columns };
    }
    const galleries = early.galleries ? early.galleries.then(answer) : api.galleries();
    galleries.catch(() => {});
    this.engine = await Engine.load(early.wasm ?? fetch('/engine.wasm'));
    window.bootMarks = { engine: performance.now() };
    this.model = new GalleryModel();
    this.controller = new Controller(this.engine);
    this.controller.width = $('scroller').clientWidth;
    this.controller.height = $('scroller').clientHeight;
    this.view = new GridView({ controller: this.controller, model: () => this.model, localItems: this.localItems,
      rendered: (r) => { this.renderTargets(r); this.showCount(); } }, $('scroller'), $('content'));
    const toast = (m) => this.toast(m);
    const sections = () => this.sections();
    this.detail = new Detail({ model: () => this.model, sections, view: this.view });
    this.live = new LiveStream({ version: () => this.model.version, changes: (c) => this.applyChanges(c),
      snapshot: (s) => { this.model.load(s); this.reconcile(); }, trashChanged: () => this.trash.refresh(),
      revoked: (m) => this.access.revoked(m), toast });
    this.access = new Access({ controller: this.controller, run: (effects) => this.drag?.run(effects),
      galleries: () => this.galleries, ended: () => { this.live.close(); this.slideshow?.close(); } }, session);
    this.slideshow = new Slideshow({ sections, toast });
    installUserMenu(session, toast);
    $('slideshow-open').addEventListener('click', () => this.slideshow.open(this.detail.id));
    $('share-open').addEventListener('click', () => openShare(this.model, session));
    this.wireToolbar();
    this.wireGalleries();
    this.drag = new Drag({ controller: this.controller, view: this.view, scroller: $('scroller'), trash: $('trash'),
      model: () => this.model, localItems: this.localItems, ingest: { load: (...a) => this.ingest.load(...a) },
      openDetail: (id) => this.detail.open(id), announce: (text) => this.announce(text), toast: (m) => this.toast(m),
      historyChanged: () => this.updateHistoryButtons(), send: (ops) => this.commit(ops), reload: () => this.reload() });
    this.ingest = new Ingest({ controller: this.controller, model: () => this.model, view: this.view,
      run: (effects) => this.drag.run(effects), toast: (m) => this.toast(m), reload: () => this.reload() });
    this.trash = new TrashPanel({ gallery: () => this.model.id, canEdit: () => this.access.can('edit'),
      commit: (operations) => this.commit(operations) });
    this.wirePasteAndPinch();
    window.addEventListener('hashchange', () => this.route());
    await this.refreshGalleries(await galleries);
    window.bootMarks.galleries = performance.now();
    await this.route();
    window.readyAt = performance.now();
    document.body.dataset.ready = '1';
  },

  toast(message, ms = 3500) {
    const t = $('toast');
    t.textContent = message;
    t.hidden = false;
    clearTimeout(this._toast);
    this._toast = setTimeout(() => { t.hidden = true; }, ms);
  },

  announce(text) { $('announcer').textContent = text; },

  // ---- galleries (F25)
  async refreshGalleries(list) {
    this.galleries = list ?? await api.galleries();
    const select = $('gallery-select');
    select.replaceChildren(...this.galleries.map((g) => {
      const o = document.createElement('option');
      o.value = g.id; o.textContent = `${g.name} (${g.itemCount})`;
      return o;
    }));
    if (this.model.id != null) select.value = this.model.id;
  },

  async route() {
    const m = location.hash.match(/^#\/g\/(\d+)(?:\/item\/(\d+))?/);
    let id = m ? Number(m[1]) : this.galleries[0]?.id;
    if (id == null) {
      const g = await api.createGallery('My gallery');
      await this.refreshGalleries();
      id = g.id;
    }
    if (id !== this.model.id) await this.open(id);
    if (m?.[2]) this.detail.show(Number(m[2])); else this.detail.hide();
  },

  async open(id) {
    const marks = (window.loadMarks = { start: performance.now() });
    const columns = await (this._prefetch?.id === id ? this._prefetch.columns : api.columns(id));
    this._prefetch = null;
    marks.fetched = performance.now();
    this.model.loadColumns(columns);
    marks.model = performance.now();
    $('gallery-select').value = id;
    this.view.selection.clear();
    this.localItems.clear();
    this.controller.load(this.model.takeArrangement());
    this.access.apply(id);
    marks.engine = performance.now();
    $('scroller').scrollTop = 0;
    this.drag?.registerTargets();
    this.view.render();
    marks.rendered = performance.now();
    this.updateHistoryButtons();
    this.live.follow(id, this.model.version);
    this.trash.refresh();
    if (!location.hash.startsWith(`#/g/${id}`)) history.replaceState(null, '', `#/g/${id}`);
  },

  wireGalleries() {
    $('gallery-select').addEventListener('change', (e) => { location.hash = `#/g/${e.target.value}`; });
    $('gallery-new').addEventListener('click', async () => {
      const name = prompt('Name of the new gallery', 'New gallery');
      if (!name) return;
      const g = await api.createGallery(name);
      await this.refreshGalleries();
      location.hash = `#/g/${g.id}`;
    });
    $('gallery-rename').addEventListener('click', async () => {
      const name = prompt('New name', this.model.name);
      if (!name) return;
      await api.renameGallery(this.model.id, name);
      this.model.name = name;
      await this.refreshGalleries();
    });
    $('gallery-duplicate').addEventListener('click', async () => {
      const g = await api.duplicateGallery(this.model.id, `${this.model.name} copy`);
      await this.refreshGalleries();
      location.hash = `#/g/${g.id}`;
    });
    $('gallery-delete').addEventListener('click', async () => {
      if (!confirm(`Delete the gallery “${this.model.name}”?`)) return;
      await api.deleteGallery(this.model.id);
      this.model.id = null;
      await this.refreshGalleries();
      location.hash = this.galleries[0] ? `#/g/${this.galleries[0].id}` : '';
      await this.route();
    });
  },

  // ---- toolbar
  wireToolbar() {
    const c = this.controller;
    $('layout-kind').addEventListener('change', (e) => { c.kind = e.target.value; c.configure(); this.view.render(); });
    $('columns').addEventListener('input', (e) => this.pinch(Number(e.target.value), c.width / 2, $('scroller').clientHeight / 2));
    $('snapping').addEventListener('change', (e) => this.drag?.setSnapping(e.target.value));
    $('drop-mode').addEventListener('change', (e) => this.drag?.setMode(e.target.value));
    $('theme').addEventListener('click', () => {
      const dark = getComputedStyle(document.documentElement).getPropertyValue('--bg').trim() === '#111113';
      document.documentElement.dataset.theme = dark ? 'light' : 'dark';
      localStorage.setItem('theme', document.documentElement.dataset.theme);
    });
    $('undo').addEventListener('click', () => this.drag?.undo());
    $('redo').addEventListener('click', () => this.drag?.redo());
    $('sort-section').addEventListener('change', (e) => {
      const by = e.target.value;
      e.target.value = '';
      if (by) this.sortSection(by);
    });
    $('add-url').addEventListener('click', async () => {
      const url = prompt('Image URL');
      if (url) this.drag?.add([{ url }]);
    });
    $('upload').addEventListener('change', async (e) => {
      this.drag?.add([...e.target.files].map((file) => ({ file })));
      e.target.value = '';
    });
    // Ctrl+wheel and trackpad pinch (which Chromium reports as Ctrl+wheel) change the
    // column count around the pointer (F22).
    $('scroller').addEventListener('wheel', (e) => {
      if (!e.ctrlKey) return;
      e.preventDefault();
      this._pinch = (this._pinch ?? 0) + e.deltaY;
      if (Math.abs(this._pinch) < 40) return;
      const r = $('scroller').getBoundingClientRect();
      this.pinch(c.columns + (this._pinch > 0 ? 1 : -1), e.clientX - r.left, e.clientY - r.top);
      this._pinch = 0;
    }, { passive: false });
  },

  /// A new column count keeping the item under (x, y) in place (F22).
  pinch(columns, x, y) {
    columns = Math.max(1, Math.min(12, Math.round(columns)));
    if (columns === this.controller.columns) return;
    const offset = this.controller.pinch(columns, x, y);
    $('columns').value = columns;
    this.view.render();
    if (offset != null) {
      $('scroller').scrollTop = offset;
      // Tell the engine now, not on the next scroll event: the next step of a quick pinch
      // anchors against this offset.
      this.drag?.run(this.controller.event(EventType.scroll, [0, $('scroller').scrollTop, performance.now() / 1000]));
    }
    this.view.render();
  },

  updateHistoryButtons() {
    const r = this.view.last;
    if (!r) return;
    $('undo').disabled = !r.canUndo;
    $('redo').disabled = !r.canRedo;
  },

  /// The trash can's look follows the engine's outside-target state (F21).
  renderTargets(r) {
    const t = r.targets.find((x) => x.id === 1);
    const trash = $('trash');
    trash.classList.toggle('hovered', !!t?.targeted && t.operation !== 'forbidden');
    trash.classList.toggle('forbidden', !!t?.targeted && t.operation === 'forbidden');
    this.updateHistoryButtons();
  },

  /// The picker's item count follows the gallery (once per version).
  showCount() {
    const model = this.model;
    if (model.version === this._countedVersion) return;
    this._countedVersion = model.version;
    const option = document.querySelector(`#gallery-select option[value="${model.id}"]`);
    if (option) option.textContent = `${model.name} (${model.count})`;
  },

  /// The gallery's name as the server last told it (a rename arrives as a version on the stream).
  showName() {
    const option = [...$('gallery-select').options].find((o) => Number(o.value) === this.model.id);
    const g = this.galleries?.find((x) => x.id === this.model.id);
    if (!option || !g || g.name === this.model.name) return;
    g.name = this.model.name;
    option.textContent = `${g.name} (${g.itemCount})`;
  },

  /// Makes the engine show the arrangement the model just loaded (a snapshot from the stream or
  /// a catch-up). O(n): the usual way is `follow`.
  reconcile() {
    this.followed.whole++;
    this.showName();
    const arrangement = this.model.takeArrangement();
    this.controller.liveSnapshot(arrangement);
    this.controller.allTitles(arrangement);
    this.forgetLocalItems();
    this.view.render();
  },

  /// Reads the server's whole arrangement and makes the engine show it: after a change it
  /// could not follow (another window's change met ours) or one of ours the server refused.
  /// A body older than what the stream brought meanwhile is read again.
  async reload() {
    const id = this.model.id;
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        const columns = await api.columns(id);
        if (this.model.id !== id) return;
        if (columns.version < this.model.version && attempt < 2) continue;
        this.model.loadColumns(columns);
        this.reconcile();
        return;
      }
    } catch (e) {
      this.toast(`Could not reload the gallery: ${e.message}`);
    }
  },

  /// The arrangement the engine shows (placeholders not counted) as sections of item data:
  /// what the detail view and the slideshow step through. With `confirmed`, the one the server
  /// confirmed: while a batch of ours is on its way, the last one seen with none (tests wait
  /// on it). O(n).
  sections({ confirmed = false } = {}) {
    if (confirmed && this.drag?.inFlight() > 0 && this._confirmed) return this._confirmed;
    const out = this.controller.snapshot().map((s) => ({ id: s.id, title: this.model.titles.get(s.id) ?? '',
      items: s.items.map((id) => this.model.items.get(id) ?? this.localItems.get(id)).filter(Boolean) }));
    if (!(this.drag?.inFlight() > 0)) this._confirmed = out;
    return out;
  },

  /// Makes the engine follow server changes the model just applied (`GalleryModel.apply`'s
  /// answer), where they are. While our own batches are on their way the engine already
  /// shows them: it is asked whether it shows this change (our batch coming back); with
  /// nothing on its way it applies the change. Anything else — a change it refuses, another
  /// window's change meeting ours, section changes — reloads the whole arrangement.
  follow(applied) {
    const c = this.controller;
    this.showName();
    c.sendTitles(applied.items, applied.sections);
    const ours = this.drag?.inFlight() > 0;
    const shown = !applied.stages.length
      || (ours ? applied.check != null && c.modelMatches(applied.check) : c.liveChanges(applied) != null);
    if (shown) this.followed.inPlace++;
    else { this.reload(); return; }
    this.forgetLocalItems();
    this.view.render();
  },

  forgetLocalItems() {
    for (const id of this.localItems.keys()) if (this.model.items.has(id)) this.localItems.delete(id);
  },

  /// A pasted image goes after the focused item (else to the end), B6; two fingers on a
  /// touch screen pinch the column count around their midpoint, F22.
  wirePasteAndPinch() {
    document.addEventListener('paste', (e) => {
      const files = [...(e.clipboardData?.files ?? [])].filter((f) => f.type.startsWith('image/'));
      const text = e.clipboardData?.getData('text/plain') ?? '';
      if (!files.length && !/^https?:\/\//.test(text.trim())) return;
      e.preventDefault();
      this.drag?.add(files.length ? files.map((file) => ({ file })) : [{ url: text.trim() }]);
    });
    const scroller = $('scroller');
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
        this.pinch(this.controller.columns + (ratio > 1 ? -1 : 1), (a.x + b.x) / 2 - r.left, (a.y + b.y) / 2 - r.top);
        start = spread();
      }
    });
    const lift = (e) => { touches.delete(e.pointerId); if (touches.size < 2) start = 0; };
    scroller.addEventListener('pointerup', lift);
    scroller.addEventListener('pointercancel', lift);
  },

  /// "Sort this section by capture date / by name" (issue 12): the section of the focused
  /// photo, else the first one on screen. The server answers the order; the engine commits
  /// it as one move: one batch and version, streamed to other windows, one step of Undo.
  async sortSection(by) {
    const cells = this.view.last?.cells ?? [];
    const at = cells.find((c) => c.kind === 'item' && (c.flags & CellFlag.focused))
      ?? cells.filter((c) => c.kind === 'item' || c.kind === 'header').sort((a, b) => a.y - b.y)[0];
    const section = at && this.controller.snapshot()[at.section];
    if (!section) return;
    try {
      const answer = await api.sectionOrder(this.model.id, section.id, by);
      this.drag?.arrange(section.id, answer.items);
    } catch (e) {
      this.toast(`Could not sort: ${e.message}`);
    }
  },

  // ---- batches: every arrangement change goes to the server as one atomic batch
  async commit(operations, { retry = true } = {}) {
    try {
      const answer = await api.batch(this.model.id, this.model.version, operations);
      const changes = answer.changes ?? answer;
      this.applyChanges(changes);
      if (touchesTrash(changes)) this.trash.refresh();
      return answer;
    } catch (e) {
      if (e instanceof ApiError && e.status === 409 && retry) {
        // Someone else changed the gallery first: catch up, then ask again (ops name ids).
        await this.catchUp();
        return this.commit(operations, { retry: false });
      }
      this.toast(e.message);
      await this.catchUp();
      throw e;
    }
  },

  /// Server changes (an answer to our batch, the live stream) into the page's copy of the
  /// gallery and the engine; a change that does not follow our version catches up.
  applyChanges(changes) {
    if (!changes || changes.toVersion == null) return;
    this.ingest.claim(changes.items);
    const applied = this.model.apply(changes);
    if (!applied) { this.catchUp(); return; }
    if (applied.skipped) return;
    this.follow(applied);
    this.detail.refresh();
  },

  async catchUp() {
    try {
      const answer = await api.changesSince(this.model.id, this.model.version);
      const applied = answer.changes ? this.model.apply(answer.changes) : false;
      if (applied && !applied.skipped) this.follow(applied);
      else if (!applied) {
        if (answer.snapshot) this.model.load(answer.snapshot);
        else this.model.loadColumns(await api.columns(this.model.id));
        this.reconcile();
      }
      this.trash.refresh();
    } catch (e) {
      this.toast(`Could not catch up: ${e.message}`);
    }
  },

};

app.start().catch((e) => {
  console.error(e);
  document.body.dataset.error = String(e);
  app.toast?.(`Could not start: ${e.message}`, 100000);
});
window.app = app;
