// The gallery picker (F25): the caller's galleries with their item counts; new, rename,
// duplicate and delete. The open gallery's name and count follow its versions.
import { api } from './api.js';

const $ = (id) => document.getElementById(id);

export class GalleryPicker {
  /// deps: model() (the open gallery's GalleryModel), route() (opens what the URL names).
  constructor(deps) {
    this.deps = deps;
    this.list = [];
    this._countedVersion = null;
  }

  async refresh(list) {
    this.list = list ?? await api.galleries();
    const select = $('gallery-select');
    select.replaceChildren(...this.list.map((g) => {
      const o = document.createElement('option');
      o.value = g.id; o.textContent = `${g.name} (${g.itemCount})`;
      return o;
    }));
    const model = this.deps.model();
    if (model.id != null) { select.value = model.id; this._countedVersion = null; this.showCount(); }
  }

  wire() {
    const model = this.deps.model;
    $('gallery-select').addEventListener('change', (e) => { location.hash = `#/g/${e.target.value}`; });
    $('gallery-new').addEventListener('click', async () => {
      const name = prompt('Name of the new gallery', 'New gallery');
      if (!name) return;
      const g = await api.createGallery(name);
      await this.refresh();
      location.hash = `#/g/${g.id}`;
    });
    $('gallery-rename').addEventListener('click', async () => {
      const name = prompt('New name', model().name);
      if (!name) return;
      await api.renameGallery(model().id, name);
      model().name = name;
      await this.refresh();
    });
    $('gallery-duplicate').addEventListener('click', async () => {
      const g = await api.duplicateGallery(model().id, `${model().name} copy`);
      await this.refresh();
      location.hash = `#/g/${g.id}`;
    });
    $('gallery-delete').addEventListener('click', async () => {
      if (!confirm(`Delete the gallery “${model().name}”?`)) return;
      await api.deleteGallery(model().id);
      model().id = null;
      await this.refresh();
      location.hash = this.list[0] ? `#/g/${this.list[0].id}` : '';
      await this.deps.route();
    });
  }

  /// The open gallery's item count (once per version).
  showCount() {
    const model = this.deps.model();
    if (model.version === this._countedVersion) return;
    this._countedVersion = model.version;
    const option = document.querySelector(`#gallery-select option[value="${model.id}"]`);
    if (option) option.textContent = `${model.name} (${model.count})`;
  }

  /// The open gallery's name as the server last told it (a rename arrives as a version on the stream).
  showName() {
    const model = this.deps.model();
    const option = [...$('gallery-select').options].find((o) => Number(o.value) === model.id);
    const g = this.list.find((x) => x.id === model.id);
    if (!option || !g || g.name === model.name) return;
    g.name = model.name;
    option.textContent = `${g.name} (${g.itemCount})`;
  }
}
