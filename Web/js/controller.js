// The engine's interaction controller (GridEngine's GridController in engine.wasm): the
// page feeds it events and draws what it answers. Calls answer decoded effects.
import { Op, LayoutKind, EventType, PointerKind, TitleKind, HistoryStep, ReorderMode, Cadence, Snapping, SectionEdit } from './protocol.js';
import { readEffects, readRender, anchorJSON } from './effects.js';
import { encodeStages } from './gallery.js';

const LAYOUT = { header: 44, inset: 8, spacing: 6 };

/// Titles for one Op.controllerTitles call; only new or renamed ones are sent.
class TitleBatch {
  constructor(controller) { this.c = controller; this.input = [controller.handle, 0]; this.count = 0; }
  /// Notes each title as sent, so that sending it again sends nothing.
  put(kind, id, title = '') {
    const key = kind === TitleKind.section ? -1 - id : id;
    if (this.c.titled.get(key) === title) return;
    this.c.titled.set(key, title);
    const b = utf8.encode(title);
    this.input.push(kind, id, b.length);
    for (const x of b) this.input.push(x);
    this.count++;
  }
  send() {
    if (!this.count) return;
    this.input[1] = this.count;
    this.c.engine.call(Op.controllerTitles, this.input);
  }
}
const utf8 = new TextEncoder();
const idle = (f) => (window.requestIdleCallback ?? ((g) => setTimeout(() => g({ timeRemaining: () => 8 }), 50)))(f);

/// V8 first runs wasm as baseline (Liftoff) code and optimises a function once it has run
/// enough: the first drag would run the drag paths cold — 2–5 ms more engine time in the
/// first frames of a drag in a 100k waterfall (BENCHMARKS.md). A small throwaway drag per
/// layout kind on a separate 180-item controller, in idle slices after the first gallery
/// loads, gets those paths optimised before a person drags. Once per page.
let warmed = false, loadWarmed = false;
function warmUp(engine) {
  if (warmed) return;
  warmed = true;
  const kinds = [LayoutKind.grid, LayoutKind.waterfall, LayoutKind.justified];
  let k = 0, h = -1, f = 0, t = 1;
  const step = (deadline) => {
    // At most ~4 ms a callback whatever the idle period left: the first thumbnails arrive
    // and are drawn in the frames right after a gallery became ready. The time is checked
    // after the throwaway controller's creation and after every frame of the drag (with 12
    // frames between checks, callbacks of 10–19 ms ran ~100 ms after a 1M gallery became
    // ready under load: BENCHMARKS.md, session 16).
    const until = performance.now() + 4;
    while (k < kinds.length && deadline.timeRemaining() > 2 && performance.now() < until) {
      if (h < 0) {
        const kind = kinds[k], snap = [3];
        for (let s = 0, id = 1; s < 3; s++) {
          snap.push(10 + s, 60);
          for (let i = 0; i < 60; i++) snap.push(id++);
          for (let i = 0; i < 60; i++) snap.push(0);
        }
        const aspects = Array.from({ length: 180 }, (_, i) => 0.4 + (i % 9) / 4);
        const a = engine.call(Op.controllerCreate, [...snap, ...aspects, kind, kind === LayoutKind.justified ? 120 : 4,
          kind === LayoutKind.grid ? 1 : 0, 600, 40, 8, 8, 8, 8, 4, 4, 0, 0.5, 600, 400,
          ReorderMode.insert, Cadence.immediate, Snapping.none]);
        if (a[0] !== 0) return;
        h = a[1];
        f = 0;
        continue;
      }
      for (let n = 0; n < 12 && f < 240 && performance.now() < until; n++, f++) {
        t += 1 / 60;
        const mouse = PointerKind.mouse;
        if (f % 120 === 0) engine.callView(Op.controllerEvent, [h, EventType.pointerDown, 1, 60, 60, t, mouse, 0]);
        engine.callView(Op.controllerEvent, [h, EventType.pointerMove, 1, 20 + (f * 37) % 560, 20 + (f * 23) % 360, t, mouse, 0]);
        engine.callView(Op.controllerTick, [h, t]);
        engine.callView(Op.controllerRender, [h, 0, (f * 97) % 2000, 600, 400]);
        if (f % 10 === 0) engine.callView(Op.controllerEvent, [h, EventType.scroll, 0, (f * 131) % 3000, t]);
        if (f % 120 === 119) {
          engine.callView(Op.controllerEvent, [h, EventType.pointerUp, 1, 300, 200, t, mouse, 0]);
          for (let q = 0; q < 40; q++) engine.callView(Op.controllerTick, [h, (t += 1 / 60)]);
        }
      }
      if (f >= 240) { engine.call(Op.controllerDestroy, [h]); h = -1; k++; }
    }
    if (k < kinds.length) idle(step);
  };
  idle(step);
}

/// Wasm memory the load of a gallery of `n` items takes, about: its id table (16 bytes an id of
/// its range when the ids lie close together, as a gallery's nearly always do: _IDTable's dense
/// form; a gallery of spread ids takes more, which the load then grows itself), and per item
/// its input, id, version, aspects and frames, and in a waterfall its column tables (measured:
/// 119 bytes an item in a waterfall, 111 in a grid, at 300k and 1M; a little more here). How
/// much of it a warm-up task touches: TOUCH_SLICE at a time for up to TOUCH_BUDGET_MS.
const loadBytes = (n, kind) => n * (16 + (kind === 'waterfall' ? 124 : 116));
const TOUCH_SLICE = 256 << 10, TOUCH_BUDGET_MS = 1;
/// A task for the next step (a message: timeouts are clamped to 4 ms once nested). The steps are
/// short (TOUCH_BUDGET_MS) because the columns body is read on this thread as it arrives, and a
/// body held back stalls the download itself (the network service waits for its pipe to drain):
/// steps of 6 ms made it ~100 ms later under load; at background priority (scheduler.postTask)
/// no step ran before the body was in.
const nextTask = () => new Promise((resolve) => {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => { channel.port1.close(); resolve(); };
  channel.port2.postMessage(null);
});

/// An arrangement (GalleryModel.takeArrangement(): {sections: [{id, count}], ids, versions,
/// aspects} in order) as the engine reads it: section count, per section its id, item count,
/// item ids, versions; then the aspects — all in order (controllerCreate, followed by `tail`),
/// or as id, aspect pairs after their count (controllerLiveSnapshot, after `head`: the handle).
/// Written straight into one Float64Array from the columns: at 100k items, building JS arrays
/// and spreading them cost several times the copy.
function encodeArrangement({ sections, ids, versions, aspects }, { head = [], tail = [], pairs = false, into = (n) => new Float64Array(n) }) {
  const n = ids.length;
  const out = into(head.length + 1 + 2 * sections.length + (pairs ? 4 : 3) * n + (pairs ? 1 : 0) + tail.length);
  out.set(head, 0);
  let k = head.length, at = 0;
  out[k++] = sections.length;
  for (const s of sections) {
    out[k++] = s.id;
    out[k++] = s.count;
    for (let i = at; i < at + s.count; i++) out[k++] = ids[i];
    for (let i = at; i < at + s.count; i++) out[k++] = versions[i];
    at += s.count;
  }
  if (pairs) out[k++] = n;
  for (let i = 0; i < n; i++) {
    if (pairs) out[k++] = ids[i];
    out[k++] = aspects[i] || 1;
  }
  out.set(tail, k);
  return out;
}

export class Controller {
  constructor(engine) {
    this.engine = engine;
    this.handle = -1;
    this.kind = 'waterfall';
    this.columns = 4;
    this.mode = ReorderMode.insert;
    this.cadence = Cadence.fast;
    this.snapping = Snapping.none;
    this.readOnly = false;
    this.width = 800;
    this.height = 600;
  }

  kindInput(columns = this.columns, kind = this.kind) {
    const inner = Math.max(1, this.width - 2 * LAYOUT.inset);
    switch (kind) {
      case 'grid': return [LayoutKind.grid, columns, 1];
      case 'justified': return [LayoutKind.justified, Math.max(40, (inner / columns) * 0.8), 0];
      case 'flow': { // F12: fixed 4:3 cells in left-aligned rows, `columns` to a row at this width
        const w = Math.max(40, Math.floor((inner - (columns - 1) * LAYOUT.spacing) / columns));
        return [LayoutKind.flow, w, Math.round(w * 0.75)];
      }
      default: return [LayoutKind.waterfall, columns, 0];
    }
  }

  configuration(kind = this.kind) {
    const i = LAYOUT.inset;
    return [...this.kindInput(this.columns, kind), this.width, LAYOUT.header, i, i, i, i, LAYOUT.spacing, LAYOUT.spacing, 0, 0.5];
  }

  /// (Re)creates the controller for a gallery just opened: `arrangement` is
  /// GalleryModel.takeArrangement()'s sections of items, which the engine holds from now on.
  load(arrangement) {
    if (this.handle >= 0) this.engine.call(Op.controllerDestroy, [this.handle]);
    const config = [...this.configuration(), this.width, this.height, this.mode, this.cadence, this.snapping];
    const answer = this.engine.callWritten(Op.controllerCreate, (into) => encodeArrangement(arrangement, { tail: config, into }));
    if (answer[0] !== 0) throw new Error(`engine refused the gallery (status ${answer[0]})`);
    this.handle = answer[1];
    this.titled = new Map();
    this.sendSectionTitles(arrangement.sections);
    warmUp(this.engine);
  }

  /// While a gallery's columns are on their way (`pending`), unless the engine was warmed as it
  /// was made (early.js), rounds of its throwaway loads (engine_warm: 2,000 items in each layout),
  /// a macrotask apart, until they arrive (ten at most, once per page; `kind`: the layout the
  /// gallery opens in, for its memory): V8 runs wasm as baseline code first, and a million-item load in baseline code
  /// took ~1.5–3× as long as in optimised code (BENCHMARKS.md, "The page at 1,000,000 items").
  /// The time is the download's, which the page waits for anyway. With `expected` (a promise of
  /// the gallery's item count, from the gallery list) the wasm memory the load will take is
  /// grown and its pages touched in the same slices (Engine.reserve): at a million items the
  /// first writes to ~120 MB of new memory were ~100 ms of the load itself (with the short steps
  /// the body's reading allows, little is touched in time yet: BENCHMARKS.md, session 15).
  async warmLoad(pending, expected, kind = this.kind) {
    if (loadWarmed) return;
    loadWarmed = true;
    let arrived = false, memory = null, counting = true;
    const marks = (globalThis.warmMarks = { start: performance.now() }); // for the benchmarks
    const settled = pending.then(() => { arrived = true; marks.arrived = performance.now(); }, () => { arrived = true; });
    const counted = (expected ?? Promise.resolve(0)).then((count) => {
      marks.counted = performance.now();
      if (!arrived && count > 0) memory = this.engine.reserve(loadBytes(count, kind));
    }, () => {}).then(() => { counting = false; });
    await null; // a body already there settles first
    // The page's first engine was warmed as it was made (early.js, engine_warm): only memory here.
    // Else a round of the engine's own warm-up loads a step (its three layouts, 2,000 items each).
    let loads = this.engine.warmed ? 10 : 0, touched = 0;
    while (!arrived && (loads < 10 || memory || counting)) {
      const t = performance.now();
      if (loads < 10) {
        if (this.engine.exports.engine_warm(1, 2000) !== 3) return;
        loads++;
      }
      while (memory && performance.now() - t < TOUCH_BUDGET_MS) {
        const from = memory.at;
        if (!this.engine.touch(memory, TOUCH_SLICE)) memory = null;
        touched += (memory?.at ?? from + TOUCH_SLICE) - from;
      }
      globalThis.loadTouchedMB = Math.round(touched / 1048576); // for the benchmarks
      marks.loads = loads;
      if (loads < 10 || memory) await nextTask();
      else await Promise.race([counted, settled]);
    }
  }

  /// Section titles for announcements (B3), the ones not sent yet. Items' titles stay here:
  /// the engine names an item by reference (U+E000 id U+E001) and `announcement` fills it in —
  /// at a million items, titles held in the engine cost ~160 MB of wasm memory.
  sendSectionTitles(sections = []) {
    const batch = new TitleBatch(this);
    for (const s of sections) batch.put(TitleKind.section, s.id, s.title);
    batch.send();
  }

  configure() {
    return this.engine.call(Op.controllerConfigure,
      [this.handle, ...this.configuration(), this.width, this.height, this.mode, this.cadence, this.snapping, this.readOnly ? 1 : 0]);
  }

  /// The whole grid read-only (a viewer) or editable (Op.controllerReadOnly): answers effects.
  setReadOnly(on, now) {
    this.readOnly = on;
    this.configure();
    return readEffects(this.engine.call(Op.controllerReadOnly, [this.handle, on ? 1 : 0, now]));
  }

  resize(width, height) { this.width = width; this.height = height; this.configure(); }

  /// A density change keeping the item under the anchor where it is (F22). Answers the new scroll offset.
  pinch(columns, anchorX, anchorY) {
    this.columns = columns;
    const a = this.engine.call(Op.controllerPinch, [this.handle, ...this.kindInput(), anchorX, anchorY]);
    return a[0] === 0 ? a[2] : null;
  }

  /// The server's whole arrangement (GalleryModel.takeArrangement() after a reload, or when the
  /// engine could not follow a change), handed to the engine in parts beside the arrangement it
  /// shows, then swapped in with no diff against the old one (Op.controllerLiveReplaceBegin,
  /// …Append, …Finish): answers `step(items)`, which hands over about that many more items and
  /// answers false, or, once all are there, swaps the arrangement in and answers true. Each step
  /// is O(its items) but two: the first (the engine sizes its tables for the whole: ~15 ms at
  /// 1M items) and the last (the swap: the layout's O(n), ~20 ms at 1M); `step.heavy()` tells
  /// whether the next step is one of them for a gallery bigger than `small` items, so that the
  /// caller gives it a task of its own (with a part before it, one task was ~35 ms: a 50 ms
  /// frame, BENCHMARKS.md session 16). A step after another gallery was loaded answers true and
  /// does nothing.
  liveReplacement({ sections, ids, versions, aspects }, small = 0) {
    const handle = this.handle;
    let begun = false;
    let s = 0, within = 0, at = 0; // the next section, the items of it sent, the items sent in all
    const step = (budget) => {
      if (handle !== this.handle) return true;
      if (!begun) {
        begun = true;
        this.engine.call(Op.controllerLiveReplaceBegin, [handle, ids.length, sections.length]);
        if (ids.length > small) return false; // the parts from the next step
      }
      if (s >= sections.length) {
        const a = this.engine.call(Op.controllerLiveReplaceFinish, [handle]);
        if (a[0] !== 0) throw new Error(`the engine refused the gallery's arrangement (status ${a[0]})`);
        return true;
      }
      const input = [handle, 0];
      for (let left = Math.max(1, budget); s < sections.length && left > 0; input[1]++) {
        const m = Math.min(sections[s].count - within, left);
        input.push(sections[s].id, m);
        for (let i = at; i < at + m; i++) input.push(ids[i]);
        for (let i = at; i < at + m; i++) input.push(versions[i]);
        for (let i = at; i < at + m; i++) input.push(aspects[i] || 1);
        left -= m; within += m; at += m;
        if (within === sections[s].count) { s++; within = 0; }
      }
      const a = this.engine.call(Op.controllerLiveReplaceAppend, input);
      if (a[0] !== 0) throw new Error(`the engine refused the gallery's arrangement (status ${a[0]})`);
      return false;
    };
    step.heavy = () => ids.length > small && handle === this.handle && (!begun || s >= sections.length);
    return step;
  }

  /// The server's changes as `GalleryModel.apply` answered them, applied where they are
  /// (Op.controllerLiveChanges). Answers the effects, or null when the engine refused them
  /// (it does not hold the arrangement they start from): then `liveReplacement`.
  liveChanges(applied) {
    if (!applied.sources) return null;
    const input = [this.handle, ...encodeStages(applied.stages), applied.items.length];
    for (const it of applied.items) input.push(it.id, it.aspect || 1);
    input.push(applied.sources.length, ...applied.sources);
    const a = this.engine.call(Op.controllerLiveChanges, input);
    return a[0] === 0 ? readEffects(a) : null;
  }

  /// Whether the engine's model already is what `check` describes ({counts, placed: [id,
  /// section, item, version], absent}) — after our own batch comes back. O(k).
  modelMatches(check) {
    const input = [this.handle, check.counts.length, ...check.counts, check.placed.length];
    for (const p of check.placed) input.push(...p);
    input.push(check.absent.length, ...check.absent);
    const a = this.engine.call(Op.controllerModelMatches, input);
    return a[0] === 0 && a[1] === 1;
  }

  event(type, fields) { return readEffects(this.engine.call(Op.controllerEvent, [this.handle, type, ...fields])); }
  tick(now) { return readEffects(this.engine.call(Op.controllerTick, [this.handle, now])); }
  render(x, y, w, h) { return readRender(this.engine.callView(Op.controllerRender, [this.handle, x, y, w, h])); }
  /// The undo and redo history as numbers (Op.controllerHistoryExport), to keep across a reload.
  exportHistory() {
    const a = this.engine.call(Op.controllerHistoryExport, [this.handle]);
    return a[0] === 0 ? Array.from(a.subarray(1)) : null;
  }
  /// Gives back what exportHistory answered (the same gallery loaded again). Answers success.
  importHistory(entries) { return this.engine.call(Op.controllerHistoryImport, [this.handle, ...entries])[0] === 0; }
  history(redo) { return readEffects(this.engine.call(Op.controllerHistory, [this.handle, redo ? HistoryStep.redo : HistoryStep.undo])); }
  /// One section's items in this order as one undoable move (Op.controllerArrange).
  /// Placeholders for added data (a paste, the upload button, Add URL) after the focused item
  /// or at the end (Op.controllerPaste): answers effects, one loadDroppedData per accepted item.
  paste(kinds) { return readEffects(this.engine.call(Op.controllerPaste, [this.handle, kinds.length, ...kinds])); }
  /// Where the server must create a placeholder's item, as the engine sees it now.
  placeholderDestination(placeholder) {
    const a = this.engine.call(Op.controllerPlaceholderDestination, [this.handle, placeholder]);
    return a[0] === 0 ? anchorJSON(a[1], a[2]) : undefined;
  }
  arrange(section, ids) { return readEffects(this.engine.call(Op.controllerArrange, [this.handle, section, ids.length, ...ids])); }
  /// Select mode: the items to the end of a section / to the trash, one undoable commit each.
  moveItems(section, ids) { return readEffects(this.engine.call(Op.controllerMoveItems, [this.handle, section, ids.length, ...ids])); }
  trashItems(ids) { return readEffects(this.engine.call(Op.controllerTrashItems, [this.handle, ids.length, ...ids])); }
  /// Sections (issue 13): add (index null: the end), move, delete — effects, one commit each.
  sectionEdit(kind, section, index) {
    return readEffects(this.engine.call(Op.controllerSectionEdit, [this.handle, SectionEdit[kind], section ?? -1, index ?? -1]));
  }
  /// The index a section dragged by its header would take with the header's top at `y` (content).
  sectionDropIndex(section, y) { return this.engine.call(Op.controllerSectionDropIndex, [this.handle, section, y])[1]; }
  addToDrag(id) { return readEffects(this.engine.call(Op.controllerAddToDrag, [this.handle, id])); }
  cancel(now) { return readEffects(this.engine.call(Op.controllerCancel, [this.handle, now])); }
  focus(id) { this.engine.call(Op.controllerFocus, [this.handle, id ?? -1]); }
  commitInsertion(placeholder, id, aspect, version) {
    return readEffects(this.engine.call(Op.controllerCommitInsertion, [this.handle, placeholder, id, aspect, version]));
  }
  deletePlaceholder(placeholder) { return readEffects(this.engine.call(Op.controllerDeletePlaceholder, [this.handle, placeholder])); }
  /// Edge auto-scroll for a drag the page carries (a section header): the points to scroll now.
  edgeScroll(pointerY, now) { return this.engine.call(Op.controllerEdgeScroll, [this.handle, pointerY == null ? 0 : 1, pointerY ?? 0, now])[1]; }
  /// Paging by gesture: the resting offset one page from `from` (direction ±1).
  pageStep(from, direction) { return this.engine.call(Op.controllerPageStep, [this.handle, from, direction])[2]; }
  scrollTarget(y, vy) { return this.engine.call(Op.controllerScrollTarget, [this.handle, 0, y, 0, vy])[2]; }
  outsideTargets(targets) {
    const input = [this.handle, targets.length];
    for (const t of targets) input.push(t.id, t.x, t.y, t.w, t.h, t.operation, t.acceptsExternal ? 1 : 0, t.deletes ? 1 : 0);
    this.engine.call(Op.controllerOutsideTargets, input);
  }

  /// The model arrangement (without placeholders) as sections of ids.
  snapshot() {
    const a = this.engine.call(Op.controllerSnapshot, [this.handle]);
    const sections = [];
    let k = 1;
    for (let n = a[k++]; n > 0; n--) {
      const id = a[k++], count = a[k++];
      sections.push({ id, items: Array.from(a.subarray(k, k + count)) });
      k += 2 * count;
    }
    return sections;
  }
}
