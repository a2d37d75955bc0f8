// The gallery picker (F25): the caller's galleries with their item counts; new, rename,
// duplicate and delete. The open gallery's name and count follow its versions. The list
// follows every window and device live: the server's list stream (GET /api/galleries/events)
// sends the caller's list whenever it changes (a gallery made, renamed, duplicated, imported or
// deleted anywhere, a membership given or taken); a window of this browser that changes it also
// tells the others at once (BroadcastChannel), and one coming back to the front while the
// stream is down reads it again.
import { api } from './api.js';
import { NARROW } from './chrome.js';
import { ask } from './ui.js';

const $ = (id) => document.getElementById(id);
const CHANNEL = 'gallery.list';
const narrow = window.matchMedia(NARROW);

/// A gallery as the picker names it: with its item count, but on a phone the name alone (the
/// header's title must fit beside Add, Share and the menu).
function label(name, count) { return narrow.matches ? name : `${name} (${count})`; }

export class GalleryPicker {
  /// deps: model() (the open gallery's GalleryModel), route() (opens what the URL names),
  /// chrome (the page's heading), toast(text), roleChanged() (the caller's role in the open
  /// gallery changed).
  constructor(deps) {
    this.deps = deps;
    this.list = [];
    this._countedVersion = null;
    this.source = null;
    this._retry = 0;
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
    await this.take(list);
  }

  /// A list from the server (the stream or a read): shown; the first gallery opened when the
  /// open one is gone; the caller's role there applied again when it changed.
  async take(list) {
    const model = this.deps.model();
    const before = this.list.find((g) => g.id === model.id)?.role;
    await this.refresh(list);
    if (model.id == null) return;
    const now = list.find((g) => g.id === model.id);
    if (!now) await this.leave();
    else if (now.role !== before) this.deps.roleChanged?.();
  }

  /// The list's live stream. EventSource reconnects by itself after a dropped connection; a
  /// refused one (signed out, the server restarting) is tried again later, less and less often.
  listen() {
    this.source?.close();
    const source = (this.source = new EventSource('/api/galleries/events'));
    source.addEventListener('open', () => { this._retry = 0; });
    source.addEventListener('galleries', (e) => {
      let data;
      try { data = JSON.parse(e.data); } catch { return; }
      if (Array.isArray(data.galleries)) this.take(data.galleries);
    });
    // The session ended: the gallery's own stream and the next request say so on the page.
    source.addEventListener('revoked', () => { source.close(); if (this.source === source) this.source = null; });
    source.addEventListener('error', () => {
      if (source.readyState !== EventSource.CLOSED || this.source !== source) return;
      this.source = null;
      const wait = Math.min(30000, 2000 * 2 ** this._retry++);
      clearTimeout(this._again);
      this._again = setTimeout(() => { if (!this.source && !this._closed) this.listen(); }, wait);
    });
  }

  /// Stops following the list (access ended: no reconnecting).
  close() {
    clearTimeout(this._again);
    this.source?.close();
    this.source = null;
    this._closed = true;
  }

  /// Whether the list stream is open (then focus need not read the list again).
  get streaming() { return this.source?.readyState === EventSource.OPEN; }

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
      if (this.streaming || document.visibilityState !== 'visible' || Date.now() - lastRead < 2000) return;
      lastRead = Date.now();
      this.follow();
    };
    window.addEventListener('focus', back);
    document.addEventListener('visibilitychange', back);
    $('gallery-select').addEventListener('change', (e) => { location.hash = `#/g/${e.target.value}`; });
    const named = (v) => (!v ? 'Enter a name.' : v.length > 200 ? 'A name has at most 200 characters.' : null);
    const why = (what) => (e) => { throw new Error(`Could not ${what}: ${e.message}`); };
    const more = () => $('more-open');
    $('gallery-new').addEventListener('click', () => ask({
      title: 'New gallery', label: 'Name', value: 'New gallery', submit: 'Create', validate: named, returnTo: more(),
      run: async (name) => {
        const g = await api.createGallery(name).catch(why('create the gallery'));
        await this.refresh().catch(() => {});
        this.changed();
        location.hash = `#/g/${g.id}`;
      },
    }));
    $('gallery-rename').addEventListener('click', () => ask({
      title: 'Rename gallery', label: 'Name', value: model().name, submit: 'Rename', validate: named, returnTo: more(),
      run: async (name) => {
        if (name === model().name) return;
        await api.renameGallery(model().id, name).catch(why('rename the gallery'));
        model().name = name;
        await this.refresh().catch(() => {});
        this.changed();
      },
    }));
    $('gallery-duplicate').addEventListener('click', async () => {
      await this.attempt('duplicate the gallery', async () => {
        const g = await api.duplicateGallery(model().id, `${model().name} copy`);
        await this.refresh();
        this.changed();
        location.hash = `#/g/${g.id}`;
      });
    });
    $('gallery-delete').addEventListener('click', () => {
      const { id, name, count } = model();
      const photos = count === 1 ? '1 photo' : `${count} photos`;
      return ask({
        title: `Delete “${name}”?`, submit: 'Delete', danger: true, returnTo: more(),
        message: `The gallery and its ${photos} are deleted for everyone it is shared with. This cannot be undone.`,
        run: async () => {
          await api.deleteGallery(id).catch(why('delete the gallery'));
          await this.refresh().catch(() => {});
          this.changed();
          if (model().id === id) await this.leave();
        },
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
