// HTML5 drag and drop with the mouse: our items leave for other windows and apps (with
// their URLs and titles), and files, URLs and other windows' items arrive. The page honours
// the engine's proposal in its dragover answers.
import { offeredKinds, readDrop } from './external.js';
import { EventType, PointerKind } from './protocol.js';
import { mods, now, pointIn, FILE, URL_ITEM } from './input.js';

export const MIME = 'application/x-drag-gallery+json';

export function installDragAndDrop({ scroller, controller: c, view, state, run, model, toast }) {
  const point = (e) => pointIn(scroller, e);
  // ---- HTML5 drag and drop of our own items (mouse)
  scroller.addEventListener('dragstart', (e) => {
    const cell = e.target.closest?.('.cell');
    if (!cell) return;
    const id = Number(cell.dataset.id);
    const item = model().items.get(id);
    if (!item) { e.preventDefault(); return; }
    state.html5 = true;
    state.dropped = false;
    view.hidePreview = true;
    const ids = view.selection.has(id) ? [...view.selection] : [id];
    const items = ids.map((i) => model().items.get(i)).filter(Boolean);
    const abs = (u) => new URL(u, location.href).href;
    const urls = items.filter((i) => i.thumbnails).map((i) => abs(i.thumbnails.original));
    e.dataTransfer.effectAllowed = 'copyMove';
    e.dataTransfer.setData(MIME, JSON.stringify({ gallery: model().id, items: items.map((i) => ({ id: i.id, title: i.title, url: i.thumbnails ? abs(i.thumbnails.original) : null })) }));
    if (urls.length) {
      e.dataTransfer.setData('text/uri-list', urls.join('\r\n'));
      e.dataTransfer.setData('text/plain', urls.join('\n'));
      e.dataTransfer.setData('text/html', items.filter((i) => i.thumbnails).map((i) => `<img src="${abs(i.thumbnails.original)}" alt="${i.title.replace(/"/g, '&quot;')}">`).join(''));
      e.dataTransfer.setData('DownloadURL', `image/jpeg:${item.title}.jpg:${abs(item.thumbnails?.original ?? '')}`);
    }
    // The lifted look (F10): the cell at 1.2× with a shadow as the drag image.
    const r = cell.getBoundingClientRect();
    const ghost = cell.cloneNode(true);
    ghost.className = 'cell drag-image lifted';
    Object.assign(ghost.style, { transform: 'none', width: `${r.width * 1.2}px`, height: `${r.height * 1.2}px`, opacity: '1' });
    if (ids.length > 1) { const b = document.createElement('span'); b.className = 'count-badge'; b.textContent = ids.length; ghost.appendChild(b); }
    document.body.appendChild(ghost);
    e.dataTransfer.setDragImage(ghost, (e.clientX - r.left) * 1.2, (e.clientY - r.top) * 1.2);
    setTimeout(() => ghost.remove(), 0);
    run(c.event(EventType.pointerMove, [1, ...point(e), e.timeStamp / 1000, PointerKind.mouse, mods(e)]));
  });

  document.addEventListener('dragover', (e) => {
    if (state.html5) {
      run(c.event(EventType.pointerMove, [1, ...point(e), e.timeStamp / 1000, PointerKind.mouse, mods(e)]));
      const op = state.proposal?.operation;
      if (op === 'move' || op === 'copy') { e.preventDefault(); e.dataTransfer.dropEffect = op; }
      else e.dataTransfer.dropEffect = 'none';
      return;
    }
    const kinds = offeredKinds(e.dataTransfer);
    if (!kinds.files && !kinds.urls && !kinds.own) return;
    const [x, y] = point(e);
    if (!state.external) {
      state.external = true;
      const n = Math.max(1, [...(e.dataTransfer.items ?? [])].filter((i) => i.kind === 'file').length);
      const k = kinds.files ? FILE : URL_ITEM;
      run(c.event(EventType.externalEnter, [x, y, e.timeStamp / 1000, n, ...Array(n).fill(k)]));
    } else {
      run(c.event(EventType.externalMove, [x, y, mods(e), e.timeStamp / 1000]));
    }
    const op = state.proposal?.operation;
    if (op === 'copy') { e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; }
    else { e.preventDefault(); e.dataTransfer.dropEffect = 'none'; }
  });

  // Entering an element must be accepted too, or Chromium stops sending dragover to it and
  // the drop there never comes (the drag ends as cancelled).
  document.addEventListener('dragenter', (e) => {
    if (state.html5) {
      const op = state.proposal?.operation;
      if (op === 'move' || op === 'copy') { e.preventDefault(); e.dataTransfer.dropEffect = op; }
      return;
    }
    const kinds = offeredKinds(e.dataTransfer);
    if (kinds.files || kinds.urls || kinds.own) e.preventDefault();
  });

  document.addEventListener('dragleave', (e) => {
    if (state.external && !e.relatedTarget) { state.external = false; run(c.event(EventType.externalLeave, [e.timeStamp / 1000])); }
  });

  document.addEventListener('drop', async (e) => {
    e.preventDefault();
    const [x, y] = point(e);
    if (state.html5) {
      state.dropped = true;
      run(c.event(EventType.pointerUp, [1, x, y, e.timeStamp / 1000, PointerKind.mouse, mods(e)]));
      return;
    }
    if (!state.external) return;
    state.external = false;
    // Read everything now (the data is gone after this event), then tell the engine how
    // many items there really are and drop them.
    const own = e.dataTransfer.getData(MIME);
    const read = readDrop(e.dataTransfer);
    let data = await read;
    if (own) {
      // Items of a gallery window (this server's originals): copied here with their titles.
      try { data = { files: [], urls: JSON.parse(own).items.filter((i) => i.url).map((i) => ({ url: i.url, title: i.title })) }; } catch { /* keep what was read */ }
    }
    const items = [...data.files.map((f) => ({ file: f })), ...data.urls.map((u) => (typeof u === 'string' ? { url: u } : u))];
    const t = now();
    run(c.event(EventType.externalLeave, [t]));
    if (!items.length) { toast('Nothing to add: drop images, image files or image links.'); return; }
    state.pendingDrop = items;
    run(c.event(EventType.externalEnter, [x, y, t, items.length, ...items.map((i) => (i.file ? FILE : URL_ITEM))]));
    run(c.event(EventType.externalDrop, [x, y, t]));
  });

  document.addEventListener('dragend', (e) => {
    if (!state.html5) return;
    state.html5 = false;
    view.hidePreview = false;
    if (!state.dropped) run(c.event(EventType.pointerCancel, [1, e.timeStamp / 1000]));
  });
}
