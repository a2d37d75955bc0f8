// Select mode (issue 13): a Select button; tapping tiles selects them (check marks); dragging
// any selected tile carries them all (drag.js gathers the selection into the engine's
// session); a bottom bar moves the selection to a section, puts it in the trash or downloads
// it. On a desktop, Shift-click selects a range and Ctrl/Cmd-click one more tile, in select
// mode or not. The engine decides every arrangement change (moveItems, trashItems).
import { zipBlob } from './zip.js';

const $ = (id) => document.getElementById(id);

export class SelectMode {
  /// deps: view (its `selection` Set is drawn as check marks), controller, run(effects),
  /// model(), sections() (app.sections: the shown arrangement with item data),
  /// announce(text), toast(text), canEdit().
  constructor(deps) {
    this.deps = deps;
    this.view = deps.view;
    this.on = false;
    this.anchor = null;   // the last tile tapped into the selection: where a Shift range starts
  }

  wire() {
    $('select-toggle').addEventListener('click', () => this.toggle(true));
    $('select-done').addEventListener('click', () => this.toggle(false));
    $('select-trash').addEventListener('click', () => this.trash());
    $('select-download').addEventListener('click', () => this.download());
    $('select-move').addEventListener('focus', () => this.refreshSections());
    $('select-move').addEventListener('change', (e) => {
      const section = Number(e.target.value);
      e.target.value = '';
      if (e.target.selectedIndex >= 0 && !Number.isNaN(section) && section) this.moveTo(section);
    });
    document.addEventListener('keydown', (e) => { if (e.key === 'Escape' && this.on && !e.defaultPrevented && this.view.last?.phase === 'idle') this.toggle(false); });
  }

  toggle(on) {
    this.on = on;
    document.body.classList.toggle('selecting', on);
    $('select-toggle').setAttribute('aria-pressed', String(on));
    $('select-toggle').hidden = on;
    $('select-bar').hidden = !on;
    if (!on) { this.view.selection.clear(); this.anchor = null; }
    this.changed();
    if (on) $('select-done').focus({ preventScroll: true });
  }

  /// A tap on a tile. Answers whether it was a selection gesture (else the caller opens it).
  tapped(id, { shift = false, toggle = false } = {}) {
    if (!this.on && !shift && !toggle) return false;
    const selection = this.view.selection;
    if (shift && this.anchor != null && this.anchor !== id) {
      // A range in the arrangement's reading order, from the last tile tapped.
      const order = this.deps.controller.snapshot().flatMap((s) => s.items);
      const a = order.indexOf(this.anchor), b = order.indexOf(id);
      if (a >= 0 && b >= 0) for (let k = Math.min(a, b); k <= Math.max(a, b); k++) selection.add(order[k]);
    } else if (selection.has(id)) selection.delete(id);
    else selection.add(id);
    this.anchor = id;
    if (!this.on && selection.size) this.toggle(true); // a desktop selection shows the bar too
    else this.changed();
    return true;
  }

  /// The selection changed (a tap, a drag that ended): the bar and the cells follow.
  changed() {
    const n = this.view.selection.size;
    $('select-count').textContent = n ? `${n} selected` : 'Select photos';
    for (const id of ['select-trash', 'select-download', 'select-move']) $(id).disabled = n === 0;
    this.refreshSections();
    this.view.schedule();
  }

  /// The "Move to…" list: the gallery's sections now (renamed, added or deleted meanwhile,
  /// here or in another window: it is read again when the list takes focus).
  refreshSections() {
    const move = $('select-move');
    const sections = this.deps.model().sectionList;
    if (move.options.length !== sections.length + 1 || sections.some((s, k) => move.options[k + 1]?.value !== String(s.id) || move.options[k + 1]?.textContent !== (s.title || 'Untitled section'))) {
      const first = document.createElement('option');
      first.value = '';
      first.textContent = 'Move to…';
      move.replaceChildren(first, ...sections.map((s) => {
        const o = document.createElement('option');
        o.value = String(s.id);
        o.textContent = s.title || 'Untitled section';
        return o;
      }));
    }
  }

  ids() { return [...this.view.selection]; }

  moveTo(section) {
    const ids = this.ids();
    const title = this.deps.model().titles.get(section) || 'Untitled section';
    const effects = this.deps.controller.moveItems(section, ids);
    if (!effects.length) { this.deps.toast(`Already at the end of ${title}.`); return; }
    this.deps.run(effects);
    this.deps.announce(`Moved ${count(ids.length)} to ${title}.`);
    this.toggle(false);
  }

  trash() {
    const ids = this.ids();
    const effects = this.deps.controller.trashItems(ids);
    if (!effects.length) return;
    this.deps.run(effects);
    this.deps.toast(`${count(ids.length)} moved to the trash. Undo brings ${ids.length === 1 ? 'it' : 'them'} back.`);
    this.deps.announce(`${count(ids.length)} moved to the trash.`);
    this.toggle(false);
  }

  /// One photo: its original. Several: a zip of their originals in the arranged order,
  /// named as the gallery's download names them (0001-Title.ext).
  async download() {
    const chosen = this.view.selection;
    const items = this.deps.sections().flatMap((s) => s.items).filter((i) => chosen.has(i.id) && i.thumbnails);
    if (!items.length) { this.deps.toast('Nothing to download: the selected photos have no image yet.'); return; }
    const name = (i, k) => `${String(k + 1).padStart(4, '0')}-${(i.title || 'photo').replace(/[\\/:*?"<>|]/g, '_')}`;
    if (items.length === 1) { save(items[0].thumbnails.original, `${name(items[0], 0)}.jpg`); return; }
    $('select-download').disabled = true;
    try {
      const files = [];
      for (const [k, i] of items.entries()) {
        const r = await fetch(i.thumbnails.original);
        if (!r.ok) throw new Error(`${i.title}: ${r.status}`);
        files.push({ name: `${name(i, k)}.${extension(r.headers.get('content-type'))}`, data: new Uint8Array(await r.arrayBuffer()) });
      }
      const url = URL.createObjectURL(zipBlob(files));
      save(url, `${(this.deps.model().name || 'photos').replace(/[\\/:*?"<>|]/g, '_')} (${items.length}).zip`);
      setTimeout(() => URL.revokeObjectURL(url), 60000);
    } catch (e) {
      this.deps.toast(`Could not download: ${e.message}`);
    } finally {
      $('select-download').disabled = this.view.selection.size === 0;
    }
  }
}

const count = (n) => `${n} photo${n === 1 ? '' : 's'}`;
const extension = (type) => ({ 'image/png': 'png', 'image/gif': 'gif', 'image/webp': 'webp', 'image/heic': 'heic' })[type?.split(';')[0]] ?? 'jpg';

function save(href, filename) {
  const a = document.createElement('a');
  a.href = href;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
}
