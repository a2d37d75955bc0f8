// The trash (F21): the count on the can, the panel listing what is in it (each with Restore),
// and Empty. It asks the server only when told a change can have touched the trash.
import { api } from './api.js';

const $ = (id) => document.getElementById(id);

export class TrashPanel {
  /// gallery(): the open gallery's id; canEdit(): whether this page may change it;
  /// commit(operations): sends one batch, as every change of the page goes.
  constructor({ gallery, canEdit, commit }) {
    this.gallery = gallery;
    this.canEdit = canEdit;
    this.commit = commit;
    $('trash').addEventListener('click', () => this.toggle());
    $('trash-close').addEventListener('click', () => { $('trash-panel').hidden = true; });
    $('trash-empty').addEventListener('click', async () => {
      const trashed = await api.trash(this.gallery());
      if (trashed.length) await this.commit([{ op: 'purge', items: trashed.map((t) => t.id) }]);
      this.toggle(true);
    });
  }

  /// The count and the open panel, from the server.
  async refresh() {
    if (this.gallery() == null || !this.canEdit()) return;
    try {
      const trashed = await api.trash(this.gallery());
      $('trash-count').textContent = trashed.length;
      $('trash-count').dataset.count = trashed.length; // an empty trash shows no badge
      if (!$('trash-panel').hidden) this.render(trashed);
    } catch { /* the next change refreshes it */ }
  }

  async toggle(forceOpen) {
    const panel = $('trash-panel');
    if (!forceOpen && !panel.hidden) { panel.hidden = true; return; }
    panel.hidden = false;
    this.render(await api.trash(this.gallery()));
  }

  render(trashed) {
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
  }
}
