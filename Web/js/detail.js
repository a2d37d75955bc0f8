// The detail view (F2): one item large, next/previous, back. Its URL is
// #/g/<gallery>/item/<id>, so the browser's back button returns to the grid.
const $ = (id) => document.getElementById(id);

export class Detail {
  constructor(app) {
    this.app = app;
    this.id = null;
    $('detail-back').addEventListener('click', () => this.close());
    $('detail-prev').addEventListener('click', () => this.step(-1));
    $('detail-next').addEventListener('click', () => this.step(1));
    document.addEventListener('keydown', (e) => {
      if ($('detail').hidden) return;
      if (e.key === 'Escape') { e.preventDefault(); this.close(); }
      if (e.key === 'ArrowLeft') this.step(-1);
      if (e.key === 'ArrowRight') this.step(1);
    });
  }

  open(id) { location.hash = `#/g/${this.app.model.id}/item/${id}`; }

  close() {
    if (history.length > 1 && location.hash.includes('/item/')) history.back();
    else location.hash = `#/g/${this.app.model.id}`;
  }

  flat() { return this.app.model.sections.flatMap((s) => s.items); }

  show(id) {
    const item = this.app.model.items.get(id);
    if (!item) { this.hide(); return; }
    this.id = id;
    const img = $('detail-image');
    img.removeAttribute('src');
    if (item.thumbnails && item.state === 'ready') img.src = item.thumbnails.detail;
    img.alt = item.title;
    $('detail-title').textContent = item.state === 'failed' ? `${item.title} — Error 😟 ${item.reason ?? ''}` : item.title;
    $('detail').hidden = false;
    $('detail-back').focus();
  }

  hide() {
    if (this.id == null && $('detail').hidden) return;
    const id = this.id;
    this.id = null;
    $('detail').hidden = true;
    if (id != null) this.app.view.focusedID = id;
    $('scroller').focus();
  }

  step(delta) {
    const all = this.flat();
    const i = all.findIndex((it) => it.id === this.id);
    if (i < 0 || !all.length) return;
    const next = all[(i + delta + all.length) % all.length];
    history.replaceState(null, '', `#/g/${this.app.model.id}/item/${next.id}`);
    this.show(next.id);
  }

  refresh() { if (this.id != null) this.show(this.id); }
}
