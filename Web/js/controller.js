// The engine's interaction controller (GridEngine's GridController in engine.wasm): the
// page feeds it events and draws what it answers. Calls answer decoded effects.
import { Op, Kind } from './engine.js';
import { readEffects, readRender } from './effects.js';

export const Snap = Object.freeze({ none: 0, paging: 1, viewAligned: 4 });
const LAYOUT = { header: 44, inset: 8, spacing: 6 };

export class Controller {
  constructor(engine) {
    this.engine = engine;
    this.handle = -1;
    this.kind = 'waterfall';
    this.columns = 4;
    this.mode = 0;       // 0 insert, 1 swap
    this.snapping = 0;
    this.readOnly = false;
    this.width = 800;
    this.height = 600;
  }

  kindInput(columns = this.columns, kind = this.kind) {
    const inner = Math.max(1, this.width - 2 * LAYOUT.inset);
    switch (kind) {
      case 'grid': return [Kind.grid, columns, 1];
      case 'justified': return [Kind.justified, Math.max(40, (inner / columns) * 0.8), 0];
      default: return [Kind.waterfall, columns, 0];
    }
  }

  configuration() {
    const i = LAYOUT.inset;
    return [...this.kindInput(), this.width, LAYOUT.header, i, i, i, i, LAYOUT.spacing, LAYOUT.spacing, 0, 0.5];
  }

  /// (Re)creates the controller for a model (GalleryModel) — a new gallery was opened.
  load(model) {
    if (this.handle >= 0) this.engine.call(Op.controllerDestroy, [this.handle]);
    // Written straight into one Float64Array: at 100k items, building JS arrays and
    // spreading them cost several times the copy.
    const config = [...this.configuration(), this.width, this.height, this.mode, 1, this.snapping];
    let n = 0;
    for (const s of model.sections) n += s.items.length;
    const input = new Float64Array(1 + 2 * model.sections.length + 3 * n + config.length);
    let k = 0;
    input[k++] = model.sections.length;
    for (const s of model.sections) {
      input[k++] = s.id;
      input[k++] = s.items.length;
      for (const it of s.items) input[k++] = it.id;
      for (const it of s.items) input[k++] = it.version;
    }
    for (const s of model.sections) for (const it of s.items) input[k++] = it.aspect || 1;
    input.set(config, k);
    const answer = this.engine.call(Op.controllerCreate, input);
    if (answer[0] !== 0) throw new Error(`engine refused the gallery (status ${answer[0]})`);
    this.handle = answer[1];
    this.titled = new Map();
    // Titles only serve announcements: send them when the page is idle, not before the first frame.
    const handle = this.handle;
    (window.requestIdleCallback ?? setTimeout)(() => { if (this.handle === handle) this.titles(model); });
  }

  /// Titles for the screen-reader announcements; only new or renamed ones are sent.
  titles(model) {
    const input = [this.handle, 0];
    const enc = new TextEncoder();
    let n = 0;
    const put = (kind, id, title) => {
      const key = kind ? -1 - id : id;
      if (this.titled.get(key) === title) return;
      this.titled.set(key, title);
      const b = enc.encode(title);
      input.push(kind, id, b.length, ...b);
      n++;
    };
    for (const s of model.sections) {
      put(1, s.id, s.title);
      for (const it of s.items) put(0, it.id, it.title);
    }
    input[1] = n;
    if (n) this.engine.call(Op.controllerTitles, input);
  }

  configure() {
    return this.engine.call(Op.controllerConfigure,
      [this.handle, ...this.configuration(), this.width, this.height, this.mode, 1, this.snapping, this.readOnly ? 1 : 0]);
  }

  resize(width, height) { this.width = width; this.height = height; this.configure(); }

  /// A density change keeping the item under the anchor where it is (F22). Answers the new scroll offset.
  pinch(columns, anchorX, anchorY) {
    this.columns = columns;
    const a = this.engine.call(Op.controllerPinch, [this.handle, ...this.kindInput(), anchorX, anchorY]);
    return a[0] === 0 ? a[2] : null;
  }

  /// The server's arrangement (after our batch, another window's, or a catch-up).
  liveSnapshot(model) {
    const aspects = [];
    let n = 0;
    for (const s of model.sections) for (const it of s.items) { aspects.push(it.id, it.aspect || 1); n++; }
    return readEffects(this.engine.call(Op.controllerLiveSnapshot, [this.handle, ...model.encode(), n, ...aspects]));
  }

  event(type, fields) { return readEffects(this.engine.call(Op.controllerEvent, [this.handle, type, ...fields])); }
  tick(now) { return readEffects(this.engine.call(Op.controllerTick, [this.handle, now])); }
  render(x, y, w, h) { return readRender(this.engine.callView(Op.controllerRender, [this.handle, x, y, w, h])); }
  history(redo) { return readEffects(this.engine.call(Op.controllerHistory, [this.handle, redo ? 1 : 0])); }
  addToDrag(id) { return readEffects(this.engine.call(Op.controllerAddToDrag, [this.handle, id])); }
  cancel(now) { return readEffects(this.engine.call(Op.controllerCancel, [this.handle, now])); }
  focus(id) { this.engine.call(Op.controllerFocus, [this.handle, id ?? -1]); }
  commitInsertion(placeholder, id, aspect, version) {
    return readEffects(this.engine.call(Op.controllerCommitInsertion, [this.handle, placeholder, id, aspect, version]));
  }
  deletePlaceholder(placeholder) { return readEffects(this.engine.call(Op.controllerDeletePlaceholder, [this.handle, placeholder])); }
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
