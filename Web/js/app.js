// The page: wires the browser to the engine (engine.wasm) and the server. Arrangement is
// decided by the engine; this file moves data between them and the DOM.
import { Engine, Op } from './engine.js';
import { api, ApiError } from './api.js';
import { GalleryModel } from './gallery.js';
import { GridView } from './view.js';
import { LiveStream } from './live.js';
import { Detail } from './detail.js';
import { installDrag } from './drag.js';

const $ = (id) => document.getElementById(id);

export const app = {
  engine: null, model: null, view: null, live: null, detail: null, drag: null,
  async start() {
    const theme = localStorage.getItem('theme');
    if (theme) document.documentElement.dataset.theme = theme;
    this.engine = await Engine.load(await fetch('/engine.wasm'));
    this.model = new GalleryModel(this.engine);
    this.view = new GridView(this.engine, $('scroller'), $('content'));
    this.view.selection = new Set();
    this.detail = new Detail(this);
    this.live = new LiveStream(this);
    this.wireToolbar();
    this.wireGalleries();
    this.drag = installDrag(this);
    window.addEventListener('hashchange', () => this.route());
    await this.refreshGalleries();
    await this.route();
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
  async refreshGalleries() {
    this.galleries = await api.galleries();
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
    const snapshot = await api.snapshot(id);
    this.model.load(snapshot);
    $('gallery-select').value = id;
    this.view.selection.clear();
    this.view.setSections(this.model.sections);
    this.drag?.reset();
    this.live.follow(id, this.model.version);
    this.refreshTrash();
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
    const v = this.view;
    $('layout-kind').addEventListener('change', (e) => v.setKind(e.target.value));
    $('columns').addEventListener('input', (e) => v.setColumns(Number(e.target.value)));
    $('snapping').addEventListener('change', (e) => this.drag?.setSnapping(e.target.value));
    $('drop-mode').addEventListener('change', (e) => this.drag?.setMode(e.target.value));
    $('theme').addEventListener('click', () => {
      const dark = getComputedStyle(document.documentElement).getPropertyValue('--bg').trim() === '#111113';
      document.documentElement.dataset.theme = dark ? 'light' : 'dark';
      localStorage.setItem('theme', document.documentElement.dataset.theme);
    });
    $('undo').addEventListener('click', () => this.drag?.undo());
    $('redo').addEventListener('click', () => this.drag?.redo());
    $('add-url').addEventListener('click', async () => {
      const url = prompt('Image URL');
      if (url) await this.dropURLs([url], this.endOfLastSection());
    });
    $('upload').addEventListener('change', async (e) => {
      await this.upload([...e.target.files], this.endOfLastSection());
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
      v.setColumns(v.columns + (this._pinch > 0 ? 1 : -1), e.clientX - r.left, e.clientY - r.top);
      $('columns').value = v.columns;
      this._pinch = 0;
    }, { passive: false });
    $('trash').addEventListener('click', () => this.toggleTrashPanel());
    $('trash-close').addEventListener('click', () => { $('trash-panel').hidden = true; });
    $('trash-empty').addEventListener('click', async () => {
      const trashed = await api.trash(this.model.id);
      if (trashed.length) await this.commit([{ op: 'purge', items: trashed.map((t) => t.id) }]);
      this.toggleTrashPanel(true);
    });
  },

  endOfLastSection() {
    const last = this.model.sections[this.model.sections.length - 1];
    return last ? { section: last.id } : {};
  },

  // ---- batches: every arrangement change goes to the server as one atomic batch
  async commit(operations, { retry = true } = {}) {
    try {
      const answer = await api.batch(this.model.id, this.model.version, operations);
      this.applyChanges(answer.changes ?? answer);
      this.refreshTrash();
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

  applyChanges(changes) {
    if (!changes || changes.toVersion == null) return;
    if (!this.model.apply(changes)) { this.catchUp(); return; }
    this.view.setSections(this.model.sections);
    this.drag?.modelChanged();
    this.detail.refresh();
  },

  async catchUp() {
    try {
      const answer = await api.changesSince(this.model.id, this.model.version);
      if (answer.stages && this.model.apply(answer)) {
        this.view.setSections(this.model.sections);
      } else {
        this.model.load(answer.sections ? answer : await api.snapshot(this.model.id));
        this.view.setSections(this.model.sections);
      }
      this.drag?.modelChanged();
      this.refreshTrash();
    } catch (e) {
      this.toast(`Could not catch up: ${e.message}`);
    }
  },

  // ---- trash (F21)
  async refreshTrash() {
    if (this.model.id == null) return;
    try {
      const trashed = await api.trash(this.model.id);
      $('trash-count').textContent = trashed.length;
      if (!$('trash-panel').hidden) this.renderTrash(trashed);
    } catch { /* the next change refreshes it */ }
  },

  async toggleTrashPanel(forceOpen) {
    const panel = $('trash-panel');
    if (!forceOpen && !panel.hidden) { panel.hidden = true; return; }
    panel.hidden = false;
    this.renderTrash(await api.trash(this.model.id));
  },

  renderTrash(trashed) {
    $('trash-list').replaceChildren(...trashed.map((it) => {
      const li = document.createElement('li');
      const img = document.createElement('img');
      if (it.thumbnails) img.src = it.thumbnails.grid;
      const name = document.createElement('span');
      name.textContent = it.title;
      const restore = document.createElement('button');
      restore.textContent = 'Restore';
      restore.addEventListener('click', () => this.commit([{ op: 'restore', items: [it.id] }]));
      li.append(img, name, restore);
      return li;
    }));
    if (!trashed.length) $('trash-list').innerHTML = '<li>The trash is empty.</li>';
  },

  // ---- ingestion (F18, F19, B6)
  async dropURLs(urls, to) {
    try {
      const answer = await api.dropURLs(this.model.id, urls, to);
      this.applyChanges(answer.changes ?? answer);
    } catch (e) { this.toast(e.message); }
  },

  async upload(files, to) {
    if (!files.length) return;
    const progressKey = -Date.now();
    this.view.progress.set(progressKey, 0);
    try {
      const answer = await api.upload(this.model.id, files, to, (f) => {
        this.uploadProgress = f;
        for (const id of this._uploading ?? []) this.view.progress.set(id, f);
        this.view.render();
      });
      this.applyChanges(answer.changes ?? answer);
    } catch (e) {
      this.toast(e.status === 413 ? 'That file is too large.' : e.message);
    } finally {
      this.view.progress.delete(progressKey);
    }
  },
};

app.start().catch((e) => {
  console.error(e);
  document.body.dataset.error = String(e);
  app.toast?.(`Could not start: ${e.message}`, 100000);
});
window.app = app;
