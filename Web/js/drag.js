// Input → engine → effects. Mouse drags use HTML5 drag and drop (so items can leave for
// other apps and arrive from them); touch and pen use long-press pointer drags; keys drive
// the keyboard drag (B3). Every event goes to the engine's controller with its time; the
// engine decides the lift, the proposal, the preview and the commit.
import { DropOperation, ReorderMode, Snapping, Modifier } from './protocol.js';
import { FILE, URL_ITEM, now } from './input.js';
import { installPointerInput } from './input-pointer.js';
import { installDragAndDrop } from './input-dragdrop.js';
import { installKeyboardInput } from './input-keyboard.js';
import { installScrolling } from './scrolling.js';

export { MIME } from './input-dragdrop.js';
const TRASH = 1;
// The page's snapping menu: view-aligned lets the engine decide when to align (automatic).
const SNAPPING = { none: Snapping.none, paging: Snapping.paging, viewAligned: Snapping.viewAlignedAutomatic };

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
        case 'loadDroppedData': app.ingest.load(e.placeholder, state.pendingDrop?.[e.index], state.pendingDrop?.[e.index - 1]); break;
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
    // Shift, Ctrl or Cmd with the tap: the item joins or leaves the selection.
    if (state.downMods & (Modifier.shift | Modifier.control | Modifier.command)) {
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
          // app.commit told the user; the engine shows the server's arrangement again.
          await app.reload();
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
    c.sendTitles([], app.model.sectionList);
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

  // ---- input, each concern in its module
  const ctx = { scroller, controller: c, view, state, run };
  installPointerInput(ctx);
  installDragAndDrop({ ...ctx, model: () => app.model, toast: (m) => app.toast(m) });
  installKeyboardInput({ ...ctx, model: () => app.model, openDetail: (id) => app.detail.open(id), ensureVisibleTitles });
  const { snap } = installScrolling({ ...ctx, registerTargets });

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
