// Ingestion (F18, F19, B6): what an external drop, a paste, the upload button or Add URL
// brought, loaded into the placeholder the engine made for it — an upload with its progress
// on the placeholder, or a URL the server fetches — created where the engine says, then put
// where the placeholder is now. One request at a time, in drop order.
import { api } from './api.js';

export class Ingest {
  /// controller: the engine's controller; model(): the page's copy of the gallery; view: the
  /// grid (upload progress); run(effects): hands engine effects back to the page; toast(text);
  /// reload(): reads the server's arrangement and shows it again after a failure.
  constructor({ controller, model, view, run, toast, reload }) {
    Object.assign(this, { controller, model, view, run, toast, reload });
    this.loading = new Set(); // on their way to the server: {placeholder, data}
    this.queue = Promise.resolve();
  }

  /// Loads the data for one placeholder; `previous` is the item dropped before it (the second
  /// and later items of one drop go right after the one before them).
  load(placeholder, data, previous) {
    // Each names its place by its neighbours, so the server must create them in drop order.
    this.queue = this.queue.then(() => this._load(placeholder, data, previous));
    return this.queue;
  }

  async _load(placeholder, data, previous) {
    const c = this.controller;
    if (!data) { this.run(c.deletePlaceholder(placeholder)); return; }
    const model = this.model();
    // The server creates the item where the engine says the placeholder is now: the live
    // stream may bring it before our answer does, and then it stays where the server put it.
    const to = previous?.created != null && model.items.has(previous.created)
      ? { after: previous.created } : (c.placeholderDestination(placeholder) ?? {});
    const loading = { placeholder, data };
    this.loading.add(loading);
    try {
      const item = await this._create(model.id, placeholder, data, to);
      data.created = item.id;
      // The live stream may have brought a newer state already (ready or failed, which bumps
      // the version): the answer's pending item must not overwrite it.
      const known = model.items.get(item.id);
      if (!known || (known.version ?? 0) < (item.version ?? 0)) model.items.set(item.id, item);
      if (data.claimed) { data.report?.(null); return; } // the live stream brought it first and it took over (claim)
      // Put it where the placeholder is now — not for the later items of a drop: the server put
      // each right after the one before, while the engine may hold that one after this
      // placeholder, and moving this item there would swap the two.
      const effects = previous ? [] : c.commitInsertion(placeholder, item.id, item.aspect || 1, item.version);
      this.run(effects.length ? effects : c.deletePlaceholder(placeholder));
      data.report?.(null);
    } catch (e) {
      this.view.progress.delete(placeholder);
      // Said where it was asked (the Add from a link dialog), else in a toast.
      const message = e.status === 413 ? 'That file is too large.' : `Could not add it: ${e.message}`;
      if (data.report) data.report(message); else this.toast(message);
      if (!data.claimed) this.run(c.deletePlaceholder(placeholder));
      this.reload();
    } finally {
      this.loading.delete(loading);
    }
  }

  /// Uploads the file (progress on the placeholder) or hands the URL to the server; answers
  /// the created item. The change itself arrives on the live stream like every other.
  async _create(gallery, placeholder, data, to) {
    let answer;
    if (data.file) {
      this.view.progress.set(placeholder, 0);
      answer = await api.upload(gallery, [data.file], to, (f) => { this.view.progress.set(placeholder, f); this.view.schedule(); });
    } else {
      answer = await api.dropURL(gallery, data.url, to, data.title);
    }
    this.view.progress.delete(placeholder);
    const item = answer.items?.[0];
    if (!item) throw new Error('the server created no item');
    return item;
  }

  /// Our own dropped item may come on the live stream before the server's answer to the
  /// drop: it takes over from its placeholder at once, so one spinner shows, not two. A URL
  /// drop is known by its source URL, an upload by its file name (pending, no source URL).
  claim(items) {
    if (!this.loading.size || !items?.length) return;
    const model = this.model();
    for (const item of items) {
      if (model.items.has(item.id)) continue; // not new to us
      for (const loading of this.loading) {
        const { data } = loading;
        if (data.claimed || data.created != null) continue;
        const same = data.url
          ? item.sourceURL === data.url || item.sourceURL === URL.parse?.(data.url)?.href
          : !item.sourceURL && item.title === data.file?.name;
        if (!same) continue;
        data.claimed = true;
        data.created = item.id;
        this.view.progress.delete(loading.placeholder);
        this.run(this.controller.deletePlaceholder(loading.placeholder));
        break;
      }
    }
  }
}
