// The gallery picker (F25): the caller's galleries with their item counts; new, rename,
// duplicate and delete. The open gallery's name and count follow its versions. The list
// follows other windows live: a window that creates, renames, duplicates or deletes a gallery
// tells the others of this browser at once (BroadcastChannel); a window coming back to the
// front (another device may have changed the list) and the open gallery's deletion read it again.
import { api } from './api.js';
import { NARROW } from './chrome.js';

const $ = (id) => document.getElementById(id);
const CHANNEL = 'gallery.list';
const narrow = window.matchMedia(NARROW);

/// A gallery as the picker names it: with its item count, but on a phone the name alone (the
/// header's title must fit beside Add, Share and the menu).
function label(name, count) { return narrow.matches ? name : `${name} (${count})`; }

export class GalleryPicker {
  /// deps: model() (the open gallery's GalleryModel), route() (opens what the URL names),
  /// chrome (the page's heading), toast(text).
  constructor(deps) {
    this.deps = deps;
    this.list = [];
    this._countedVersion = null;
    this.channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : null;
  }

  /// The options named again (the window crossed the phone width).
  relabel() {
    const model = this.deps.model();
    for (const o of $('gallery-select').options) {
      const id = Number(o.value), g = this.list.find((x) => x.id === id);
      if (id === model.id) o.textContent = label(model.name, model.count);
      else if (g) o.textContent = label(g.name, g.itemCount);
    }
  }

  /// Other windows of this browser hear that the list changed.
  changed() { try { this.channel?.postMessage('changed'); } catch { /* closed */ } }

  /// Reads the list again (another window changed it); opens the first gallery when the open
  /// one is gone.
  async follow() {
    let list;
    try { list = await api.galleries(); } catch { return; }
    const model = this.deps.model();
    await this.refresh(list);
    if (model.id != null && !list.some((g) => g.id === model.id)) await this.leave();
  }

  /// The open gallery was deleted elsewhere (its stream said so).
  async deletedElsewhere() {
    try { await this.refresh(); } catch { return; }
    await this.leave();
  }

  async leave() {
    const model = this.deps.model();
    model.id = null;
    location.hash = this.list[0] ? `#/g/${this.list[0].id}` : '';
    await this.deps.route();
  }

  async refresh(list) {
    this.list = list ?? await api.galleries();
    const select = $('gallery-select');
    select.replaceChildren(...this.list.map((g) => {
      const o = document.createElement('option');
      o.value = g.id; o.textContent = label(g.name, g.itemCount);
      return o;
    }));
    const model = this.deps.model();
    if (model.id != null) { select.value = model.id; this._countedVersion = null; this.showCount(); }
  }

  /// Runs a gallery action; a failure is said on screen.
  async attempt(what, run) {
    try { await run(); } catch (e) { this.deps.toast(`Could not ${what}: ${e.message}`); }
  }

  wire() {
    const model = this.deps.model;
    narrow.addEventListener('change', () => this.relabel());
    this.channel?.addEventListener('message', () => this.follow());
    let lastRead = Date.now();
    const back = () => {
      if (document.visibilityState !== 'visible' || Date.now() - lastRead < 2000) return;
      lastRead = Date.now();
      this.follow();
    };
    window.addEventListener('focus', back);
    document.addEventListener('visibilitychange', back);
    $('gallery-select').addEventListener('change', (e) => { location.hash = `#/g/${e.target.value}`; });
    $('gallery-new').addEventListener('click', async () => {
      const name = prompt('Name of the new gallery', 'New gallery');
      if (!name) return;
      await this.attempt('create the gallery', async () => {
        const g = await api.createGallery(name);
        await this.refresh();
        this.changed();
        location.hash = `#/g/${g.id}`;
      });
    });
    $('gallery-rename').addEventListener('click', async () => {
      const name = prompt('New name', model().name);
      if (!name) return;
      await this.attempt('rename the gallery', async () => {
        await api.renameGallery(model().id, name);
        model().name = name;
        await this.refresh();
        this.changed();
      });
    });
    $('gallery-duplicate').addEventListener('click', async () => {
      await this.attempt('duplicate the gallery', async () => {
        const g = await api.duplicateGallery(model().id, `${model().name} copy`);
        await this.refresh();
        this.changed();
        location.hash = `#/g/${g.id}`;
      });
    });
    $('gallery-delete').addEventListener('click', async () => {
      if (!confirm(`Delete the gallery “${model().name}”?`)) return;
      await this.attempt('delete the gallery', async () => {
        await api.deleteGallery(model().id);
        await this.refresh();
        this.changed();
        await this.leave();
      });
    });
  }

  /// The open gallery's item count (once per version).
  showCount() {
    const model = this.deps.model();
    if (model.version === this._countedVersion) return;
    this._countedVersion = model.version;
    const option = document.querySelector(`#gallery-select option[value="${model.id}"]`);
    if (option) option.textContent = label(model.name, model.count);
    this.deps.chrome?.heading(model.name);
  }

  /// The open gallery's name as the server last told it (a rename arrives as a version on the stream).
  showName() {
    const model = this.deps.model();
    const option = [...$('gallery-select').options].find((o) => Number(o.value) === model.id);
    const g = this.list.find((x) => x.id === model.id);
    this.deps.chrome?.heading(model.name);
    if (!option || !g || g.name === model.name) return;
    g.name = model.name;
    option.textContent = label(g.name, g.itemCount);
  }
}
