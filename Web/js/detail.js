// The detail view (F2): one item large, next/previous, back. Its URL is
// #/g/<gallery>/item/<id>, so the browser's back button returns to the grid.
const $ = (id) => document.getElementById(id);

export class Detail {
  /// deps: model() (the page's GalleryModel), sections() (the arrangement shown, as item data),
  /// view (the grid: the focus returns to the item last shown).
  constructor(deps) {
    this.deps = deps;
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

  open(id) { location.hash = `#/g/${this.deps.model().id}/item/${id}`; }

  close() {
    if (history.length > 1 && location.hash.includes('/item/')) history.back();
    else location.hash = `#/g/${this.deps.model().id}`;
  }

  flat() { return this.deps.sections().flatMap((s) => s.items); }

  show(id) {
    const item = this.deps.model().items.get(id);
    if (!item) { this.hide(); return; }
    this.id = id;
    const img = $('detail-image');
    img.removeAttribute('src');
    if (item.thumbnails && item.state === 'ready') img.src = item.thumbnails.detail;
    img.alt = item.title;
    $('detail-title').textContent = item.state === 'failed' ? `${item.title} — Error 😟 ${item.reason ?? ''}` : item.title;
    $('detail').hidden = false;
    $('detail-back').focus();
    this.showMetadata(item);
  }

  /// What the photo's EXIF says (issue 12): date, camera, lens, exposure, size, and the place
  /// when the server shows it (members; links that show metadata).
  async showMetadata(item) {
    const list = $('detail-meta');
    list.replaceChildren();
    list.hidden = true;
    if (item.state !== 'ready') return;
    let m;
    try {
      const r = await fetch(`/api/items/${item.id}/metadata`, { cache: 'no-store' });
      if (!r.ok) return;
      m = await r.json();
    } catch { return; }
    if (this.id !== item.id) return;
    const rows = [];
    const add = (label, value, href) => {
      if (value == null || value === '') return;
      const dd = document.createElement('dd');
      if (href) { const a = document.createElement('a'); a.href = href; a.target = '_blank'; a.rel = 'noopener noreferrer'; a.textContent = value; dd.append(a); }
      else dd.textContent = value;
      const dt = document.createElement('dt');
      dt.textContent = label;
      const row = document.createElement('div');
      row.append(dt, dd);
      rows.push(row);
    };
    add('Taken', m.captured ? formatDate(m.captured) : null);
    add('Camera', m.camera);
    add('Lens', m.lens);
    add('Exposure', [m.exposure, m.aperture, m.iso ? `ISO ${m.iso}` : null, m.focalLength].filter(Boolean).join(' · '));
    add('Size', m.width && m.height ? `${m.width} × ${m.height}${m.fileSize ? ` · ${formatBytes(m.fileSize)}` : ''}` : null);
    if (m.latitude != null && m.longitude != null) {
      const place = `${m.latitude.toFixed(4)}, ${m.longitude.toFixed(4)}`;
      add('Place', place, `https://www.openstreetmap.org/?mlat=${m.latitude}&mlon=${m.longitude}#map=15/${m.latitude}/${m.longitude}`);
    }
    list.replaceChildren(...rows);
    list.hidden = rows.length === 0;
  }

  hide() {
    if (this.id == null && $('detail').hidden) return;
    const id = this.id;
    this.id = null;
    $('detail').hidden = true;
    if (id != null) this.deps.view.focusedID = id;
    $('scroller').focus();
  }

  step(delta) {
    const all = this.flat();
    const i = all.findIndex((it) => it.id === this.id);
    if (i < 0 || !all.length) return;
    const next = all[(i + delta + all.length) % all.length];
    history.replaceState(null, '', `#/g/${this.deps.model().id}/item/${next.id}`);
    this.show(next.id);
  }

  refresh() { if (this.id != null) this.show(this.id); }
}

/// "2024-06-01T18:30:05+02:00" → "1 June 2024, 18:30 (UTC+02:00)": the time as the camera's clock
/// showed it where the photo was taken, not converted to the viewer's zone.
function formatDate(iso) {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::\d{2})?([+-]\d{2}:\d{2})?$/.exec(iso);
  if (!m) return iso;
  const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
  return `${Number(m[3])} ${months[Number(m[2]) - 1]} ${m[1]}, ${m[4]}:${m[5]}${m[6] ? ` (UTC${m[6]})` : ''}`;
}

function formatBytes(n) {
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MB`;
  if (n >= 1 << 10) return `${Math.round(n / (1 << 10))} KB`;
  return `${n} bytes`;
}
