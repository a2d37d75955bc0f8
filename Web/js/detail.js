// The detail view (F2), a lightbox (issue 13): one photo large on black; swipe, the arrow
// keys or the side buttons step; pinch, double-tap (double-click) or Ctrl+wheel zoom, a drag
// pans the zoomed photo; Escape, Back or the browser's back close it. Its URL is
// #/g/<gallery>/item/<id>, so the browser's back button returns to the grid.
const $ = (id) => document.getElementById(id);
const MAX_ZOOM = 5, TAP_ZOOM = 2.5;

export class Detail {
  /// deps: model() (the page's GalleryModel), sections() (the arrangement shown, as item data),
  /// view (the grid: the focus returns to the item last shown).
  constructor(deps) {
    this.deps = deps;
    this.id = null;
    this.zoom = { s: 1, x: 0, y: 0 };
    $('detail-back').addEventListener('click', () => this.close());
    $('detail-prev').addEventListener('click', () => this.step(-1));
    $('detail-next').addEventListener('click', () => this.step(1));
    document.addEventListener('keydown', (e) => {
      if ($('detail').hidden) return;
      if (e.key === 'Escape') { e.preventDefault(); this.close(); }
      else if (e.key === 'ArrowLeft' && this.zoom.s === 1) { e.preventDefault(); this.step(-1); }
      else if (e.key === 'ArrowRight' && this.zoom.s === 1) { e.preventDefault(); this.step(1); }
      else if (e.key.startsWith('Arrow')) { // zoomed: the arrows pan
        e.preventDefault();
        const d = 60, dx = { ArrowLeft: d, ArrowRight: -d }[e.key] ?? 0, dy = { ArrowUp: d, ArrowDown: -d }[e.key] ?? 0;
        this.setZoom(this.zoom.s, this.zoom.x + dx, this.zoom.y + dy, true);
      } else if (e.key === '+' || e.key === '=') { e.preventDefault(); this.zoomAt(Math.min(MAX_ZOOM, this.zoom.s * 1.5), ...this.middle(), true); }
      else if (e.key === '-') { e.preventDefault(); this.zoomAt(Math.max(1, this.zoom.s / 1.5), ...this.middle(), true); }
      else if (e.key === '0') { e.preventDefault(); this.resetZoom(true); }
      else if (e.key === 'Tab') this.trapTab(e);
    });
    this.wireGestures();
  }

  open(id) { location.hash = `#/g/${this.deps.model().id}/item/${id}`; }

  close() {
    if (history.length > 1 && location.hash.includes('/item/')) history.back();
    else location.hash = `#/g/${this.deps.model().id}`;
  }

  flat() { return this.deps.sections().flatMap((s) => s.items); }

  /// Tab stays inside the lightbox (a modal dialog).
  trapTab(e) {
    const stops = [...$('detail').querySelectorAll('button, a[href]')].filter((x) => x.offsetParent !== null);
    if (!stops.length) return;
    const k = stops.indexOf(document.activeElement);
    const next = e.shiftKey ? (k <= 0 ? stops.length - 1 : k - 1) : (k + 1) % stops.length;
    e.preventDefault();
    stops[next].focus();
  }

  show(id) {
    const item = this.deps.model().items.get(id);
    if (!item) { this.hide(); return; }
    const already = !$('detail').hidden;
    this.id = id;
    this.resetZoom(false);
    const img = $('detail-image');
    img.removeAttribute('src');
    if (item.thumbnails && item.state === 'ready') img.src = item.thumbnails.detail;
    img.alt = item.title || 'Untitled photo';
    $('detail-title').textContent = item.state === 'failed' ? `${item.title} — Error 😟 ${item.reason ?? ''}` : item.title;
    $('detail').hidden = false;
    // The page behind is out of reach while the lightbox shows (a modal dialog).
    for (const el of [$('bar'), $('main'), $('trash')]) el.inert = true;
    if (!already || !$('detail').contains(document.activeElement)) $('detail-back').focus();
    this.showMetadata(item);
  }

  // ---- zoom and pan: translate(x, y) scale(s) on the photo, its origin at its top left

  middle() { const r = $('detail-stage').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }

  setZoom(s, x, y, animate = false) {
    const img = $('detail-image'), stage = $('detail-stage');
    s = Math.max(1, Math.min(MAX_ZOOM, s));
    const w = img.offsetWidth * s, h = img.offsetHeight * s;
    const left = img.offsetLeft, top = img.offsetTop, W = stage.clientWidth, H = stage.clientHeight;
    // The photo never leaves a gap at an edge it could fill; smaller than the stage, it centres.
    const clamp = (t, base, size, room) => (size <= room ? (room - size) / 2 - base : Math.min(-base, Math.max(room - base - size, t)));
    if (s === 1) { x = 0; y = 0; } else { x = clamp(x, left, w, W); y = clamp(y, top, h, H); }
    this.zoom = { s, x, y };
    img.classList.toggle('animate', animate);
    img.style.transform = s === 1 ? '' : `translate(${x}px,${y}px) scale(${s})`;
    $('detail').classList.toggle('zoomed', s > 1);
    $('detail').dataset.zoom = s.toFixed(2);
  }

  /// Zooms to `s` keeping the photo's point under (px, py) (client coordinates) in place.
  zoomAt(s, px, py, animate = false) {
    const img = $('detail-image'), stage = $('detail-stage').getBoundingClientRect();
    const z = this.zoom;
    s = Math.max(1, Math.min(MAX_ZOOM, s));
    const bx = stage.left + img.offsetLeft, by = stage.top + img.offsetTop; // the unzoomed box
    const u = (px - bx - z.x) / z.s, v = (py - by - z.y) / z.s;
    this.setZoom(s, px - bx - u * s, py - by - v * s, animate);
  }

  resetZoom(animate) { this.setZoom(1, 0, 0, animate); }

  /// Touch and pen: one finger swipes (unzoomed) or pans (zoomed), two pinch, a double tap
  /// zooms in or back. Mouse: a double click zooms, a drag pans, Ctrl+wheel zooms.
  wireGestures() {
    const stage = $('detail-stage');
    const pointers = new Map();
    let gesture = null, lastTap = null, tapZoomAt = -1e9;
    const img = $('detail-image');
    stage.addEventListener('pointerdown', (e) => {
      if (e.button > 0) return;
      stage.setPointerCapture?.(e.pointerId);
      pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      const z = this.zoom;
      if (pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        gesture = { kind: 'pinch', d: Math.hypot(a.x - b.x, a.y - b.y) || 1, s: z.s };
      } else if (pointers.size === 1) {
        gesture = { kind: z.s > 1 ? 'pan' : 'swipe', x0: e.clientX, y0: e.clientY, zx: z.x, zy: z.y, moved: false, t: e.timeStamp };
      }
    });
    stage.addEventListener('pointermove', (e) => {
      if (!pointers.has(e.pointerId) || !gesture) return;
      pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      if (gesture.kind === 'pinch' && pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        const d = Math.hypot(a.x - b.x, a.y - b.y);
        this.zoomAt(gesture.s * d / gesture.d, (a.x + b.x) / 2, (a.y + b.y) / 2);
        gesture.moved = true;
        return;
      }
      const dx = e.clientX - gesture.x0, dy = e.clientY - gesture.y0;
      if (Math.hypot(dx, dy) > 8) gesture.moved = true;
      if (gesture.kind === 'pan') this.setZoom(this.zoom.s, gesture.zx + dx, gesture.zy + dy);
      else if (gesture.kind === 'swipe' && gesture.moved) { img.classList.remove('animate'); img.style.transform = `translate(${dx}px,0)`; }
    });
    const end = (e) => {
      if (!pointers.delete(e.pointerId) || !gesture) return;
      const g = gesture;
      if (g.kind === 'pinch') {
        if (pointers.size === 0) gesture = null;
        else { const [p] = [...pointers.values()]; gesture = { kind: 'pan', x0: p.x, y0: p.y, zx: this.zoom.x, zy: this.zoom.y, moved: true }; }
        return;
      }
      gesture = null;
      const dx = e.clientX - g.x0, dy = e.clientY - g.y0;
      if (g.kind === 'swipe') {
        img.classList.add('animate');
        img.style.transform = '';
        if (e.type === 'pointerup' && Math.abs(dx) > 50 && Math.abs(dx) > Math.abs(dy)) { this.step(dx < 0 ? 1 : -1); return; }
        if (e.type === 'pointerup' && dy > 90 && dy > Math.abs(dx) * 1.5) { this.close(); return; } // swipe down closes
      }
      if (e.type !== 'pointerup' || g.moved || e.pointerType === 'mouse') return;
      // A tap: a second one soon after, near the first, zooms in there (or back out).
      if (lastTap && e.timeStamp - lastTap.t < 320 && Math.hypot(e.clientX - lastTap.x, e.clientY - lastTap.y) < 40) {
        lastTap = null;
        tapZoomAt = e.timeStamp;
        this.toggleZoom(e.clientX, e.clientY);
      } else lastTap = { t: e.timeStamp, x: e.clientX, y: e.clientY };
    };
    stage.addEventListener('pointerup', end);
    stage.addEventListener('pointercancel', end);
    stage.addEventListener('dblclick', (e) => {
      e.preventDefault();
      if (e.timeStamp - tapZoomAt < 600) return; // a touch double tap, zoomed already
      this.toggleZoom(e.clientX, e.clientY);
    });
    stage.addEventListener('wheel', (e) => {
      e.preventDefault();
      if (e.ctrlKey) this.zoomAt(this.zoom.s * Math.exp(-e.deltaY / 200), e.clientX, e.clientY);
      else if (this.zoom.s > 1) this.setZoom(this.zoom.s, this.zoom.x - e.deltaX, this.zoom.y - e.deltaY);
    }, { passive: false });
  }

  toggleZoom(x, y) {
    if (this.zoom.s > 1) this.resetZoom(true);
    else this.zoomAt(TAP_ZOOM, x, y, true);
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
    this.resetZoom(false);
    $('detail').hidden = true;
    for (const el of [$('bar'), $('main'), $('trash')]) el.inert = false;
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
    $('detail').dataset.step = delta > 0 ? 'next' : 'prev';
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
