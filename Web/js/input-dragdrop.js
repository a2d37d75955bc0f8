// HTML5 drag and drop with the mouse: our items leave for other windows and apps (with
// their URLs and titles), and files, URLs and other windows' items arrive. The page honours
// the engine's proposal in its dragover answers.
import { offeredKinds, readDrop } from './external.js';
import { EventType, PointerKind } from './protocol.js';
import { mods, now, pointIn, FILE, URL_ITEM } from './input.js';

export const MIME = 'application/x-drag-gallery+json';

/// ctx: {scroller, controller, view, state, run, model(), toast(text)}.
export function installDragAndDrop(ctx) {
  ctx.scroller.addEventListener('dragstart', (e) => dragStart(ctx, e));
  document.addEventListener('dragover', (e) => dragOver(ctx, e));
  document.addEventListener('dragenter', (e) => dragEnter(ctx, e));
  document.addEventListener('dragleave', (e) => {
    const { state, run, controller: c } = ctx;
    if (state.external && !e.relatedTarget) { state.external = false; run(c.event(EventType.externalLeave, [e.timeStamp / 1000])); }
  });
  document.addEventListener('drop', (e) => drop(ctx, e));
  document.addEventListener('dragend', (e) => {
    const { state, view, run, controller: c } = ctx;
    if (!state.html5) return;
    state.html5 = false;
    view.hidePreview = false;
    if (!state.dropped) run(c.event(EventType.pointerCancel, [1, e.timeStamp / 1000]));
  });
}

const moveEvent = (ctx, e) => ctx.controller.event(EventType.pointerMove,
  [1, ...pointIn(ctx.scroller, e), e.timeStamp / 1000, PointerKind.mouse, mods(e)]);

/// One of our items (or the selection with it) leaves as HTML5 drag data (mouse).
function dragStart(ctx, e) {
  const { state, view, model } = ctx;
  const cell = e.target.closest?.('.cell');
  if (!cell) return;
  const id = Number(cell.dataset.id);
  const item = model().items.get(id);
  if (!item) { e.preventDefault(); return; }
  state.html5 = true;
  state.dropped = false;
  view.hidePreview = true;
  const ids = view.selection.has(id) ? [...view.selection] : [id];
  offer(e.dataTransfer, model().id, item, ids.map((i) => model().items.get(i)).filter(Boolean));
  setDragImage(e, cell, ids.length);
  ctx.run(moveEvent(ctx, e));
}

/// What other windows and apps receive: our own format, the originals' URLs, HTML images and
/// a download of the first.
function offer(dataTransfer, gallery, item, items) {
  const abs = (u) => new URL(u, location.href).href;
  const urls = items.filter((i) => i.thumbnails).map((i) => abs(i.thumbnails.original));
  dataTransfer.effectAllowed = 'copyMove';
  dataTransfer.setData(MIME, JSON.stringify({ gallery, items: items.map((i) => ({ id: i.id, title: i.title, url: i.thumbnails ? abs(i.thumbnails.original) : null })) }));
  if (!urls.length) return;
  dataTransfer.setData('text/uri-list', urls.join('\r\n'));
  dataTransfer.setData('text/plain', urls.join('\n'));
  dataTransfer.setData('text/html', items.filter((i) => i.thumbnails).map((i) => `<img src="${abs(i.thumbnails.original)}" alt="${i.title.replace(/"/g, '&quot;')}">`).join(''));
  dataTransfer.setData('DownloadURL', `image/jpeg:${item.title}.jpg:${abs(item.thumbnails?.original ?? '')}`);
}

/// The lifted look (F10): the cell at 1.2× with a shadow as the drag image, with the count
/// of items carried.
function setDragImage(e, cell, count) {
  const r = cell.getBoundingClientRect();
  const ghost = cell.cloneNode(true);
  ghost.className = 'cell drag-image lifted';
  Object.assign(ghost.style, { transform: 'none', width: `${r.width * 1.2}px`, height: `${r.height * 1.2}px`, opacity: '1' });
  // The count of items carried, as the touch drag's stack shows it (.cell[data-count]).
  if (count > 1) ghost.dataset.count = String(count); else delete ghost.dataset.count;
  document.body.appendChild(ghost);
  e.dataTransfer.setDragImage(ghost, (e.clientX - r.left) * 1.2, (e.clientY - r.top) * 1.2);
  setTimeout(() => ghost.remove(), 0);
}

/// Our drag moving, or data from elsewhere over the page: the engine proposes, the answer
/// to the browser follows its proposal.
function dragOver(ctx, e) {
  const { state, run, controller: c } = ctx;
  if (state.html5) {
    run(moveEvent(ctx, e));
    const op = state.proposal?.operation;
    if (op === 'move' || op === 'copy') { e.preventDefault(); e.dataTransfer.dropEffect = op; }
    else e.dataTransfer.dropEffect = 'none';
    return;
  }
  const kinds = offeredKinds(e.dataTransfer);
  if (!kinds.files && !kinds.urls && !kinds.own) return;
  const [x, y] = pointIn(ctx.scroller, e);
  if (!state.external) {
    state.external = true;
    const n = Math.max(1, [...(e.dataTransfer.items ?? [])].filter((i) => i.kind === 'file').length);
    const k = kinds.files ? FILE : URL_ITEM;
    run(c.event(EventType.externalEnter, [x, y, e.timeStamp / 1000, n, ...Array(n).fill(k)]));
  } else {
    run(c.event(EventType.externalMove, [x, y, mods(e), e.timeStamp / 1000]));
  }
  e.preventDefault();
  e.dataTransfer.dropEffect = state.proposal?.operation === 'copy' ? 'copy' : 'none';
}

// Entering an element must be accepted too, or Chromium stops sending dragover to it and
// the drop there never comes (the drag ends as cancelled).
function dragEnter(ctx, e) {
  const { state } = ctx;
  if (state.html5) {
    const op = state.proposal?.operation;
    if (op === 'move' || op === 'copy') { e.preventDefault(); e.dataTransfer.dropEffect = op; }
    return;
  }
  const kinds = offeredKinds(e.dataTransfer);
  if (kinds.files || kinds.urls || kinds.own) e.preventDefault();
}

async function drop(ctx, e) {
  const { state, run, controller: c } = ctx;
  e.preventDefault();
  const [x, y] = pointIn(ctx.scroller, e);
  if (state.html5) {
    state.dropped = true;
    run(c.event(EventType.pointerUp, [1, x, y, e.timeStamp / 1000, PointerKind.mouse, mods(e)]));
    return;
  }
  if (!state.external) return;
  state.external = false;
  // Read everything now (the data is gone after this event), then tell the engine how
  // many items there really are and drop them.
  const items = await droppedItems(e.dataTransfer);
  const t = now();
  run(c.event(EventType.externalLeave, [t]));
  if (!items.length) { ctx.toast('Nothing to add: drop images, image files or image links.'); return; }
  state.pendingDrop = items;
  run(c.event(EventType.externalEnter, [x, y, t, items.length, ...items.map((i) => (i.file ? FILE : URL_ITEM))]));
  run(c.event(EventType.externalDrop, [x, y, t]));
}

/// The items of an external drop: files and URLs, or a gallery window's items (this server's
/// originals, copied here with their titles).
async function droppedItems(dataTransfer) {
  const own = dataTransfer.getData(MIME);
  let data = await readDrop(dataTransfer);
  if (own) {
    try { data = { files: [], urls: JSON.parse(own).items.filter((i) => i.url).map((i) => ({ url: i.url, title: i.title })) }; } catch { /* keep what was read */ }
  }
  return [...data.files.map((f) => ({ file: f })), ...data.urls.map((u) => (typeof u === 'string' ? { url: u } : u))];
}
