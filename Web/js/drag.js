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

/// The drag machinery of one page: feeds input to the engine's controller and carries out
/// its effects. Everything it needs comes in `deps`:
///   controller, view, scroller, trash (elements), model() (the page's GalleryModel),
///   localItems (copies the server has not named yet), ingest (loads dropped data),
///   openDetail(id), announce(text), toast(text), historyChanged(),
///   send(operations) (one batch to the server; rejects after telling the user),
///   reload() (the server's arrangement again), select (select mode: tapped(id, mods), changed()).
export class Drag {
  constructor(deps) {
    this.deps = deps;
    this.c = deps.controller;
    this.view = deps.view;
    this.scroller = deps.scroller;
    this.state = {
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
    this.run = this.run.bind(this);
    this.registerTargets = this.registerTargets.bind(this);
    // Input, each concern in its module.
    const ctx = { scroller: this.scroller, controller: this.c, view: this.view, state: this.state, run: this.run };
    installPointerInput(ctx);
    installDragAndDrop({ ...ctx, model: deps.model, toast: deps.toast });
    installKeyboardInput({ ...ctx, model: deps.model, openDetail: deps.openDetail });
    this.snap = installScrolling({ ...ctx, registerTargets: this.registerTargets }).snap;
  }

  registerTargets() {
    const s = this.scroller.getBoundingClientRect(), t = this.deps.trash.getBoundingClientRect();
    this.c.outsideTargets([{ id: TRASH, x: t.left - s.left, y: t.top - s.top, w: t.width, h: t.height,
      operation: DropOperation.move, acceptsExternal: false, deletes: true }]);
  }

  /// Carries out the engine's effects.
  run(effects) {
    const state = this.state;
    for (const e of effects) {
      switch (e.type) {
        case 'scrollBy': this.scroller.scrollTop += e.dy; break;
        case 'commit': this.commit(e); break;
        case 'loadDroppedData': this.deps.ingest.load(e.placeholder, state.pendingDrop?.[e.index], state.pendingDrop?.[e.index - 1]); break;
        case 'announce': this.deps.announce(e.text); break;
        case 'dragBegan': this.gatherSelection(e.items); this.registerTargets(); break;
        case 'proposalChanged': state.proposal = e; break;
        case 'dragEnded':
          state.proposal = null;
          if (this.view.selection.size) { this.view.selection.clear(); this.deps.select?.changed(); }
          break;
        case 'itemTapped': this.tapped(e.id); break;
      }
    }
    this.ensureLoop();
    this.view.schedule();
  }

  /// Items selected beforehand travel together (F17). (addToDrag answers dragBegan for each
  /// item it adds: that one must not add them again.)
  gatherSelection(items) {
    const selection = this.view.selection;
    if (this.state.gathering || selection.size < 2 || items.length !== 1 || !selection.has(items[0])) return;
    this.state.gathering = true;
    try { for (const id of selection) if (id !== items[0]) this.run(this.c.addToDrag(id)); } finally { this.state.gathering = false; }
  }

  tapped(id) {
    // In select mode a tap selects; Shift with a click selects a range, Ctrl or Cmd one more.
    const m = this.state.downMods;
    const select = this.deps.select;
    if (select?.tapped(id, { shift: !!(m & Modifier.shift), toggle: !!(m & (Modifier.control | Modifier.command)) })) return;
    this.view.selection.clear();
    this.deps.openDetail(id);
  }

  /// A commit goes to the server as the engine said (by ids and neighbours): one batch per
  /// commit, one batch at a time, in commit order.
  commit(e) {
    if (e.kind === 'copy') {
      // Until the server names the copies, draw them with their originals' data.
      e.copies.forEach((id, k) => {
        const source = this.deps.model().items.get(e.copiedFrom[k]);
        if (source) this.deps.localItems.set(id, { ...source, thumbnails: source.thumbnails, id });
      });
    }
    if (e.kind === 'undo' || e.kind === 'redo' || e.kind === 'liveUpdate') this.deps.historyChanged(e);
    const ops = e.operations;
    if (!ops.length) return;
    // A section deleted takes its items to the trash: the ones the engine took away with it,
    // which a big section's delete sends to the trash in parts first (parts.js).
    const sectionItems = ops.some((op) => op.op === 'deleteSection') ? sectionsOf(e.removed) : undefined;
    // Until its answer is applied the engine shows this change and the server does not:
    // server changes meanwhile are checked against it, not applied on top (app.follow).
    const state = this.state;
    state.inFlight++;
    state.queue = state.queue.then(async () => {
      try {
        // A refused batch: the user was told; the engine shows the server's arrangement again.
        try { await this.deps.send(ops, { sectionItems }); } catch { await this.deps.reload(); }
      } finally {
        state.inFlight--;
      }
    });
  }

  inFlight() { return this.state.inFlight; }

  // One frame loop while the engine is not idle. The effects of a tick go through run(),
  // which must not schedule a second loop (each frame would double the callbacks); the
  // frame renders at once so the next frame is decided on the current phase.
  step() {
    const state = this.state;
    state.loop = 0;
    state.ticking = true;
    try { this.run(this.c.tick(now())); } finally { state.ticking = false; }
    this.view.flush();
    const phase = this.view.last?.phase;
    if (phase && phase !== 'idle') state.loop = requestAnimationFrame(() => this.step());
    this.deps.historyChanged();
  }

  ensureLoop() {
    if (this.state.loop || this.state.ticking) return;
    this.state.loop = requestAnimationFrame(() => this.step());
  }

  setMode(mode) { this.c.mode = ReorderMode[mode] ?? ReorderMode.insert; this.c.configure(); }
  setSnapping(name) {
    this.c.snapping = SNAPPING[name] ?? Snapping[name] ?? Snapping.none;
    this.c.configure();
    if (this.c.snapping !== Snapping.none) this.snap();
  }
  undo() { this.run(this.c.history(false)); this.scroller.focus(); }
  redo() { this.run(this.c.history(true)); this.scroller.focus(); }
  /// A section in this order (ids), as one committed move: one batch, one undo step.
  arrange(section, ids) { this.run(this.c.arrange(section, ids)); }
  /// Added data — files or URLs ({file} / {url}) from a paste, the upload button or Add URL:
  /// the engine places a placeholder for each (after the focused item, else at the end) and
  /// asks for its data, as for a drop.
  add(items) {
    if (!items.length) return;
    this.state.pendingDrop = items;
    this.run(this.c.paste(items.map((i) => (i.file ? FILE : URL_ITEM))));
  }
}

/// Placements ({id, section, index}) as a lookup of each section's ids in their order.
function sectionsOf(placements) {
  const by = new Map();
  for (const p of [...placements].sort((a, b) => a.index - b.index)) {
    if (!by.has(p.section)) by.set(p.section, []);
    by.get(p.section).push(p.id);
  }
  return (section) => by.get(section) ?? [];
}
