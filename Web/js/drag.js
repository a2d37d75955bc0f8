// Input → engine → effects. Mouse drags use HTML5 drag and drop (so items can leave for
// other apps and arrive from them); touch and pen use long-press pointer drags; keys drive
// the keyboard drag (B3). Every event goes to the engine's controller with its time; the
// engine decides the lift, the proposal, the preview and the commit.
import { offeredKinds, readDrop } from './external.js';
import { EventType, PointerKind, Key, Modifier, DropData, DropOperation, CellFlag, ReorderMode, Snapping } from './protocol.js';

export const MIME = 'application/x-drag-gallery+json';
const KEYS = { ' ': Key.space, Enter: Key.enter, Escape: Key.escape, ArrowUp: Key.up, ArrowDown: Key.down,
  ArrowLeft: Key.left, ArrowRight: Key.right, Tab: Key.tab };
const pointerKind = (e) => PointerKind[e.pointerType] ?? PointerKind.mouse;
// Files carry an image; URLs too, once they load.
const FILE = DropData.file | DropData.image, URL_ITEM = DropData.url | DropData.image;
const TRASH = 1;
// The page's snapping menu: view-aligned lets the engine decide when to align (automatic).
const SNAPPING = { none: Snapping.none, paging: Snapping.paging, viewAligned: Snapping.viewAlignedAutomatic };
const now = () => performance.now() / 1000;
const mods = (e) => (e.shiftKey ? Modifier.shift : 0) | (e.ctrlKey ? Modifier.control : 0) | (e.altKey ? Modifier.option : 0) | (e.metaKey ? Modifier.command : 0);

export function installDrag(app) {
  const scroller = document.getElementById('scroller');
  const trash = document.getElementById('trash');
  const c = app.controller;
  const view = app.view;
  const state = {
    html5: false,        // a mouse drag of ours is in flight as HTML5 drag and drop
    dropped: false,
    external: false,     // a drag from elsewhere is over the page
    proposal: null,
    downMods: 0,
    loop: 0,
    ticking: false,      // inside the frame loop's tick
    gathering: false,    // adding the selection to a drag that began
    pendingDrop: null,   // data read from an external drop, by drop item index
    queue: Promise.resolve(),
    inFlight: 0,         // commits sent (or queued) whose server answer is not applied yet
  };

  const point = (e) => {
    const r = scroller.getBoundingClientRect();
    return [e.clientX - r.left, e.clientY - r.top];
  };

  function registerTargets() {
    const s = scroller.getBoundingClientRect(), t = trash.getBoundingClientRect();
    c.outsideTargets([{ id: TRASH, x: t.left - s.left, y: t.top - s.top, w: t.width, h: t.height,
      operation: DropOperation.move, acceptsExternal: false, deletes: true }]);
  }

  // ---- effects
  function run(effects) {
    for (const e of effects) {
      switch (e.type) {
        case 'scrollBy': scroller.scrollTop += e.dy; break;
        case 'commit': commit(e); break;
        case 'loadDroppedData': app.loadDropped(e.placeholder, state.pendingDrop?.[e.index], state.pendingDrop?.[e.index - 1]); break;
        case 'announce': app.announce(e.text); break;
        case 'dragBegan':
          // Items selected beforehand travel together (F17).
          // (addToDrag answers dragBegan for each item it adds: that one must not add them again.)
          if (!state.gathering && view.selection.size > 1 && e.items.length === 1 && view.selection.has(e.items[0])) {
            state.gathering = true;
            try { for (const id of view.selection) if (id !== e.items[0]) run(c.addToDrag(id)); } finally { state.gathering = false; }
          }
          registerTargets();
          break;
        case 'proposalChanged': state.proposal = e; break;
        case 'dragEnded': state.proposal = null; view.selection.clear(); break;
        case 'itemTapped': tapped(e.id); break;
      }
    }
    ensureLoop();
    view.schedule();
  }

  function tapped(id) {
    if (state.downMods & (1 | 2 | 8)) {
      if (view.selection.has(id)) view.selection.delete(id); else view.selection.add(id);
      view.schedule();
      return;
    }
    view.selection.clear();
    app.detail.open(id);
  }

  // Commits go to the server one batch at a time, in order.
  function commit(e) {
    if (e.kind === 'copy') {
      // Until the server names the copies, draw them with their originals' data.
      e.copies.forEach((id, k) => {
        const source = app.model.items.get(e.copiedFrom[k]);
        if (source) app.localItems.set(id, { ...source, thumbnails: source.thumbnails, id });
      });
    }
    if (e.kind === 'undo' || e.kind === 'redo' || e.kind === 'liveUpdate') app.updateHistoryButtons?.();
    // The engine said what the server must do (by ids and neighbours): send it as it is, one
    // batch per commit, in commit order.
    const ops = e.operations;
    if (!ops.length) return;
    // Until its answer is applied the engine shows this change and the server does not:
    // app.follow must not apply server changes on top of it.
    state.inFlight++;
    state.queue = state.queue.then(async () => {
      try {
        try {
          await app.commit(ops);
        } catch {
          // app.commit told the user and caught up; the engine shows the server's arrangement again.
          app.reconcile();
        }
      } finally {
        state.inFlight--;
      }
    });
  }

  /// Before a key drives the engine, the titles it may announce: the visible items' and sections'.
  function ensureVisibleTitles() {
    const cells = view.last?.cells ?? [];
    c.ensureTitles(cells.filter((x) => x.kind === 'item').map((x) => app.model.items.get(x.id)));
    c.sendTitles([], [...new Set(cells.map((x) => x.section))].map((s) => app.model.sections[s]).filter(Boolean));
  }

  // One frame loop while the engine is not idle. The effects of a tick go through run(),
  // which must not schedule a second loop (each frame would double the callbacks); the
  // frame renders at once so the next frame is decided on the current phase.
  function step() {
    state.loop = 0;
    state.ticking = true;
    try { run(c.tick(now())); } finally { state.ticking = false; }
    view.flush();
    const phase = view.last?.phase;
    if (phase && phase !== 'idle') state.loop = requestAnimationFrame(step);
    app.updateHistoryButtons?.();
  }

  function ensureLoop() {
    if (state.loop || state.ticking) return;
    state.loop = requestAnimationFrame(step);
  }

  // ---- pointers: touch and pen drag with a long press; the mouse only taps here
  scroller.addEventListener('pointerdown', (e) => {
    if (e.button !== 0 || !e.target.closest('.cell')) return;
    state.downMods = mods(e);
    scroller.focus({ preventScroll: true });
    run(c.event(EventType.pointerDown, [e.pointerId, ...point(e), e.timeStamp / 1000, pointerKind(e), mods(e)]));
  });
  scroller.addEventListener('pointermove', (e) => {
    if (state.html5 || (e.pointerType === 'mouse' && !e.buttons)) return;
    // A mouse drag is the browser's (HTML5); only touch and pen moves drive the engine here.
    if (e.pointerType === 'mouse') return;
    run(c.event(EventType.pointerMove, [e.pointerId, ...point(e), e.timeStamp / 1000, pointerKind(e), mods(e)]));
  });
  window.addEventListener('pointerup', (e) => {
    if (state.html5) return;
    run(c.event(EventType.pointerUp, [e.pointerId, ...point(e), e.timeStamp / 1000, pointerKind(e), mods(e)]));
  });
  scroller.addEventListener('pointercancel', (e) => {
    if (state.html5) return; // the browser cancels the pointer when its own drag starts
    run(c.event(EventType.pointerCancel, [e.pointerId, e.timeStamp / 1000]));
  });
  // Once the engine lifted a touch, the finger drags the item instead of scrolling.
  scroller.addEventListener('touchmove', (e) => {
    const phase = view.last?.phase;
    if (phase === 'lifted' || phase === 'dragging') e.preventDefault();
  }, { passive: false });
  scroller.addEventListener('contextmenu', (e) => { if (e.target.closest('.cell')) e.preventDefault(); });

  // ---- HTML5 drag and drop of our own items (mouse)
  scroller.addEventListener('dragstart', (e) => {
    const cell = e.target.closest?.('.cell');
    if (!cell) return;
    const id = Number(cell.dataset.id);
    const item = app.model.items.get(id);
    if (!item) { e.preventDefault(); return; }
    state.html5 = true;
    state.dropped = false;
    view.hidePreview = true;
    const ids = view.selection.has(id) ? [...view.selection] : [id];
    const items = ids.map((i) => app.model.items.get(i)).filter(Boolean);
    const abs = (u) => new URL(u, location.href).href;
    const urls = items.filter((i) => i.thumbnails).map((i) => abs(i.thumbnails.original));
    e.dataTransfer.effectAllowed = 'copyMove';
    e.dataTransfer.setData(MIME, JSON.stringify({ gallery: app.model.id, items: items.map((i) => ({ id: i.id, title: i.title, url: i.thumbnails ? abs(i.thumbnails.original) : null })) }));
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
    if (!items.length) { app.toast('Nothing to add: drop images, image files or image links.'); return; }
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

  // ---- keyboard (B3) and history (B4)
  scroller.addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'z') {
      e.preventDefault();
      run(c.history(e.shiftKey));
      return;
    }
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'y') { e.preventDefault(); run(c.history(true)); return; }
    const key = KEYS[e.key];
    if (key === undefined) return;
    if (key === KEYS.Tab && view.last?.phase === 'idle' && !e.shiftKey) return; // leave the grid
    e.preventDefault();
    // Enter on a resting grid opens the focused photo (as a click does); Space lifts it.
    if (key === KEYS.Enter && view.last?.phase === 'idle' && !e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey) {
      const focused = view.last.cells.find((x) => x.kind === 'item' && (x.flags & CellFlag.focused));
      if (focused && app.model.items.has(focused.id)) { app.detail.open(focused.id); return; }
    }
    ensureVisibleTitles();
    run(c.event(EventType.key, [key, mods(e), e.timeStamp / 1000]));
    view.revealFocus = true;
    view.schedule();
  });
  function firstVisible() { return view.last?.cells.find((x) => x.kind === 'item')?.id ?? -1; }
  scroller.addEventListener('focus', () => { if (view.last && !view.last.cells.some((x) => x.flags & CellFlag.focused)) { c.focus(firstVisible()); view.schedule(); } });

  // ---- scrolling and snapping (F6–F8)
  let lastScroll = { y: 0, t: 0, v: 0 };
  let settleTimer = 0;
  scroller.addEventListener('scroll', () => {
    const t = now();
    const y = scroller.scrollTop;
    if (t > lastScroll.t) lastScroll.v = (y - lastScroll.y) / (t - lastScroll.t);
    lastScroll = { y, t, v: lastScroll.v };
    run(c.event(EventType.scroll, [0, y, t]));
    if (c.snapping !== Snapping.none && !state.snapping) {
      clearTimeout(settleTimer);
      settleTimer = setTimeout(() => snap(), 120);
    }
  }, { passive: true });
  function snap() {
    if (view.last?.phase !== 'idle') return;
    const target = c.scrollTarget(scroller.scrollTop, lastScroll.v);
    if (Math.abs(target - scroller.scrollTop) < 1) return;
    state.snapping = true;
    scroller.scrollTo({ top: target, behavior: 'smooth' });
    setTimeout(() => { state.snapping = false; }, 400);
  }

  new ResizeObserver(() => {
    c.resize(scroller.clientWidth, scroller.clientHeight);
    registerTargets();
    view.schedule();
  }).observe(scroller);

  return {
    run,
    registerTargets,
    inFlight: () => state.inFlight,
    setMode(mode) { c.mode = ReorderMode[mode] ?? ReorderMode.insert; c.configure(); },
    setSnapping(name) { c.snapping = SNAPPING[name] ?? Snapping.none; c.configure(); if (c.snapping !== Snapping.none) snap(); },
    undo() { run(c.history(false)); scroller.focus(); },
    redo() { run(c.history(true)); scroller.focus(); },
    /// A section in this order (ids), as one committed move: one batch, one undo step.
    arrange(section, ids) { run(c.arrange(section, ids)); },
    /// Added data — files or URLs ({file} / {url}) from a paste, the upload button or Add URL:
    /// the engine places a placeholder for each (after the focused item, else at the end) and
    /// asks for its data, as for a drop.
    add(items) {
      if (!items.length) return;
      state.pendingDrop = items;
      run(c.paste(items.map((i) => (i.file ? FILE : URL_ITEM))));
    },
  };
}
