// The page: wires the browser to the engine (engine.wasm) and the server. Arrangement is
// decided by the engine; this file moves data between them and the DOM.
import { Engine } from './engine.js';
import { CellFlag } from './protocol.js';
import { api, answer, columnsAnswer, decodeColumns, ApiError } from './api.js';
import { GalleryModel, touchesTrash, Slicer, SLICE_CHANGES } from './gallery.js';
import { namedItems, splitOperations, placeAfter } from './parts.js';
import { GridView } from './view.js';
import { Controller } from './controller.js';
import { LiveStream } from './live.js';
import { Detail } from './detail.js';
import { Drag } from './drag.js';
import { enter } from './auth.js';
import { Access } from './access.js';
import { installUserMenu } from './usermenu.js';
import { openShare } from './share.js';
import { Slideshow } from './slideshow.js';
import { startFileDrop } from './filedrop.js';
import { TrashPanel } from './trash.js';
import { Ingest } from './ingest.js';
import { Toolbar } from './toolbar.js';
import { GalleryPicker } from './galleries.js';
import { SelectMode } from './select.js';
import { Sections } from './sections.js';
import { Chrome } from './chrome.js';
import { Settings } from './settings.js';

const $ = (id) => document.getElementById(id);

/// Milliseconds of a long change's slices applied in one task (app.follow), and what one slice
/// should take: the rest of a frame stays for drawing.
const FOLLOW_TASK_MS = 6;
const FOLLOW_SLICE_MS = 3;

/// Runs `f` in a task of its own soon (a message to ourselves: unlike setTimeout, no 4 ms
/// clamp after a few in a row), after the browser has had its chance to draw a frame.
const nextTask = (() => {
  const channel = new MessageChannel();
  const waiting = [];
  channel.port1.onmessage = () => waiting.shift()?.();
  return (f) => { waiting.push(f); channel.port2.postMessage(null); };
})();

export const app = {
  engine: null, model: null, controller: null, view: null, live: null, detail: null, drag: null,
  localItems: new Map(), // engine-made ids (copies not yet named by the server) → data to draw
  followed: { inPlace: 0, whole: 0, sliced: 0 }, // server changes the engine followed in place / by a whole reload; long ones cut into slices
  batchLimit: 1000, // items a batch may name: the server's default --max-batch-items; its 413 names its own
  inParts: 0,        // changes on their way in parts (parts.js): server changes meanwhile go into the model only
  _following: [],        // changes not applied yet behind a long one, which is cut into slices (follow)
  _sliceChanges: 4,      // item changes in the next slice of a long change (follow; it grows while slices are quick)
  // Items of a whole arrangement handed to the engine in one part (reconcile): the next part's, sized
  // from the last one's time (about FOLLOW_SLICE_MS) within min and max.
  replaceItems: { next: 16384, min: 1024, max: 262144 },
  _followGeneration: 0,
  async start() {
    const theme = localStorage.getItem('theme');
    if (theme) document.documentElement.dataset.theme = theme;
    // index.html started the downloads (engine, gallery list, the gallery named in the
    // address); the engine compiles while the others arrive.
    const early = window.early ?? {};
    window.early = null;
    const boot = (window.bootMarks = { modules: performance.now() }); // for scripts/bench-page.py
    // Signed in (or a share link opened) first: the sign-in, setup and link pages are auth.js's.
    const session = (this.session = await enter(early));
    boot.session = performance.now();
    if (session.fresh) { early.galleries = null; early.columns = null; }
    if (session.link?.role === 'uploader') { await startFileDrop(session); return; }
    if (early.columns) {
      const columns = early.columns.response.then((r) => (r instanceof Response ? columnsAnswer(r)
        : Object.assign(decodeColumns(r.body, r.whole), { resume: r.resume })));
      columns.catch(() => {}); // a failure surfaces when open() awaits it
      this._prefetch = { id: early.columns.id, columns };
    }
    const galleries = (this._galleries = early.galleries ? early.galleries.then(answer) : api.galleries());
    galleries.catch(() => {});
    this.engine = await Engine.load((early.engine && await early.engine) ?? fetch('/engine.wasm'));
    boot.engine = performance.now();
    this.model = new GalleryModel();
    this.controller = new Controller(this.engine);
    this.controller.width = $('scroller').clientWidth;
    this.controller.height = $('scroller').clientHeight;
    this.view = new GridView({ controller: this.controller, model: () => this.model, localItems: this.localItems,
      rendered: (r) => { this.toolbar.rendered(r); this.picker.showCount(); this.activeDescendant(r); } }, $('scroller'), $('content'));
    this.settings = new Settings(session);
    this.chrome = new Chrome();
    this.chrome.wire();
    this.toolbar = new Toolbar({ controller: this.controller, view: this.view, drag: () => this.drag,
      sortSection: (by) => this.sortSection(by), settings: this.settings, gallery: () => this.model.id,
      announce: (text) => this.announce(text), chrome: this.chrome,
      title: (id) => (this.model.items.get(id) ?? this.localItems.get(id))?.title || 'Untitled photo' });
    this.picker = new GalleryPicker({ model: () => this.model, route: () => this.route(), chrome: this.chrome, toast: (m) => this.toast(m),
      roleChanged: () => { if (this.model.id != null) this.access.apply(this.model.id); } });
    const toast = (m) => this.toast(m);
    const sections = () => this.sections();
    this.detail = new Detail({ model: () => this.model, sections, view: this.view });
    this.live = new LiveStream({ version: () => this.model.version, changes: (c) => this.applyChanges(c),
      snapshot: (s) => { this.model.load(s); this.reconcile(); }, reload: () => this.reload(), trashChanged: () => this.trash.refresh(),
      revoked: (m) => this.access.revoked(m), toast, deleted: () => this.picker.deletedElsewhere() });
    this.access = new Access({ controller: this.controller, run: (effects) => this.drag?.run(effects),
      galleries: () => this.picker.list, ended: () => { this.live.close(); this.picker.close(); this.slideshow?.close(); } }, session);
    this.slideshow = new Slideshow({ sections, toast });
    installUserMenu(session, toast);
    if (session.user?.name) $('user-menu').dataset.initial = session.user.name.slice(0, 1).toUpperCase();
    $('slideshow-open').addEventListener('click', () => this.slideshow.open(this.detail.id));
    $('share-open').addEventListener('click', () => openShare(this.model, session));
    this.toolbar.wire();
    this.picker.wire();
    this.select = new SelectMode({ view: this.view, controller: this.controller, run: (effects) => this.drag.run(effects),
      model: () => this.model, sections, announce: (text) => this.announce(text), toast });
    this.select.wire();
    this.drag = new Drag({ controller: this.controller, view: this.view, scroller: $('scroller'), trash: $('trash'), select: this.select,
      model: () => this.model, localItems: this.localItems, ingest: { load: (...a) => this.ingest.load(...a) },
      openDetail: (id) => this.detail.open(id), announce: (text) => this.announce(text), toast: (m) => this.toast(m),
      historyChanged: (e) => this.toolbar.historyChanged(e), send: (ops, options) => this.commit(ops, options), reload: () => this.reload() });
    this.sectionEdits = new Sections({ controller: this.controller, view: this.view, scroller: $('scroller'), content: $('content'),
      run: (effects) => this.drag.run(effects), send: (ops) => this.commit(ops), model: () => this.model,
      announce: (text) => this.announce(text), toast, canEdit: () => this.access.can('edit') });
    this.sectionEdits.wire();
    this.ingest = new Ingest({ controller: this.controller, model: () => this.model, view: this.view,
      run: (effects) => this.drag.run(effects), toast: (m) => this.toast(m), reload: () => this.reload() });
    this.trash = new TrashPanel({ gallery: () => this.model.id, canEdit: () => this.access.can('edit'),
      commit: (operations) => this.commit(operations) });
    window.addEventListener('hashchange', () => this.route());
    // The undo history outlives a reload for the session (settings.js).
    window.addEventListener('pagehide', () => this.saveHistory());
    // The gallery named in the address is fetched while the list (the picker, the caller's
    // role) arrives; open() waits for the list before the engine takes the gallery.
    this._listed = galleries.then((list) => this.picker.refresh(list)).then(() => { boot.galleries = performance.now(); });
    this._listed.catch(() => {}); // a failure surfaces where it is awaited
    if (!this._prefetch) await this._listed;
    // What the first gallery's open starts besides its grid (its thumbnails' loads, its live
    // stream, the trash count) and the gallery list's stream wait until the grid is on screen,
    // then start one a frame (below): starting them (~10-25 ms of the main thread for the
    // requests at 100k, traced) no longer delays the grid's first frame.
    const afterReady = (this._afterReady = []);
    if (!session.link || session.link.role !== 'uploader') afterReady.push(() => this.picker.listen());
    try {
      await this.route();
    } finally {
      this._afterReady = null;
    }
    // Ready once the browser has made the first frame of the grid (its style, layout, paint and
    // commit: the task after the animation callbacks of that frame): stamped before, ready came
    // before the grid was on screen, and the work of that frame fell in the first frame after ready.
    if (!document.hidden) await new Promise((done) => requestAnimationFrame(() => nextTask(done)));
    window.readyAt = performance.now();
    document.body.dataset.ready = '1';
    // One a frame (the thumbnails first: open() puts them first; then the streams): started all
    // at once right after ready, their work and the first answers made a frame of 33-50 ms there
    // at 1M (BENCHMARKS.md, session 19).
    const next = (f) => (document.hidden ? setTimeout(f, 0) : requestAnimationFrame(() => nextTask(f)));
    const run = (i) => {
      if (i >= afterReady.length) return;
      try { afterReady[i](); } finally { next(() => run(i + 1)); } // one failing does not stop the others
    };
    nextTask(() => run(0));
  },

  /// The grid's focused photo is its active descendant (the listbox's focus for screen readers).
  activeDescendant(r) {
    const f = r.cells.find((x) => x.kind === 'item' && (x.flags & CellFlag.focused));
    const el = f ? this.view.elementFor(f.id) : null;
    const old = this._active;
    if (old === el && el?.id === `photo-${f?.id}`) return;
    if (old && old !== el) old.removeAttribute('id');
    this._active = el;
    if (el) { el.id = `photo-${f.id}`; $('scroller').setAttribute('aria-activedescendant', el.id); }
    else $('scroller').removeAttribute('aria-activedescendant');
  },

  toast(message, ms = 3500) {
    const t = $('toast');
    t.textContent = message;
    t.hidden = false;
    clearTimeout(this._toast);
    this._toast = setTimeout(() => { t.hidden = true; }, ms);
  },

  /// Says the engine's announcement, its item references (U+E000 id U+E001) named by their titles.
  announce(text) {
    $('announcer').textContent = text.replace(/\uE000(\d+)\uE001/g, (_, id) => {
      const item = this.model.items.get(Number(id)) ?? this.localItems.get(Number(id));
      return item?.title || 'Untitled photo';
    });
  },

  async route() {
    const m = location.hash.match(/^#\/g\/(\d+)(?:\/item\/(\d+))?/);
    let id = m ? Number(m[1]) : this.picker.list[0]?.id;
    if (id == null) {
      const g = await api.createGallery('My gallery');
      await this.picker.refresh();
      id = g.id;
    }
    if (id !== this.model.id) await this.open(id);
    if (m?.[2]) this.detail.show(Number(m[2])); else this.detail.hide();
  },

  async open(id) {
    if (this.model.id != null && this.model.id !== id) this.saveHistory();
    const marks = (window.loadMarks = { start: performance.now() });
    const pending = this._prefetch?.id === id ? this._prefetch.columns : api.columns(id);
    // The first gallery's item count comes with the gallery list, before its columns: the
    // engine's memory for it is made ready while they arrive (Controller.warmLoad).
    const list = this._galleries ?? Promise.resolve(this.picker.list);
    this._galleries = null;
    this.controller.warmLoad(pending, list.then((l) => l.find((g) => g.id === id)?.itemCount), this.settings.view(id).kind);
    const columns = await pending;
    this._prefetch = null;
    if (this._listed) { const listed = this._listed; this._listed = null; await listed; } // roles come with the list
    marks.fetched = performance.now();
    this.model.loadColumns(columns);
    // A first visit's body is handed over before its titles (early.js): the grid opens on the
    // other columns and its tiles take their titles (their accessible names) when they are in.
    columns.whole?.then(() => {
      marks.titles = performance.now(); // for the benchmarks and the tests
      if (this.model.items.fillTitles(columns)) this.view.retitle();
    },
      (e) => this.toast(`The photos' titles did not arrive: ${e.message}`));
    marks.model = performance.now();
    $('gallery-select').value = id;
    this.select.toggle(false);
    this.localItems.clear();
    this.toolbar.restoreView(id);
    this.dropFollowing();
    this.controller.load(this.model.takeArrangement());
    const kept = this.settings.history(id);
    if (kept) this.controller.importHistory(kept);
    this.access.apply(id);
    marks.engine = performance.now();
    $('scroller').scrollTop = 0;
    this.drag?.registerTargets();
    // Its thumbnails load from its first frame on (view.js); on the page's first load from ready on.
    const later = this._afterReady;
    if (later) this.view.holdImagesOneFrame((load) => later.unshift(load));
    else this.view.holdImagesOneFrame();
    this.view.render();
    marks.rendered = performance.now();
    this.toolbar.historyChanged();
    // The first visit's titles are read on once the grid is on screen (early.readColumns).
    if (columns.resume) { if (later) later.push(columns.resume); else columns.resume(); }
    const follow = () => {
      if (this.model.id !== id) return; // another gallery opened meanwhile: it follows its own
      this.live.follow(id, this.model.version);
      this.trash.refresh();
    };
    if (later) later.push(follow); else follow();
    if (!location.hash.startsWith(`#/g/${id}`)) history.replaceState(null, '', `#/g/${id}`);
  },

  /// Makes the engine show the arrangement the model just loaded (a snapshot from the stream or
  /// a catch-up). O(n): the usual way is `follow`.
  reconcile() {
    if (this.inParts) return; // the engine shows the whole change; the reload after the last part reconciles
    this.dropFollowing();
    this.followed.whole++;
    this.picker.showName();
    // Handed to the engine in parts, a few milliseconds a task (`_runFollowing`), beside the
    // arrangement it shows, and swapped in at the end: at 100k items one call took the whole
    // arrangement and diffed it against the old one, a frame of 100–250 ms (BENCHMARKS.md).
    // Changes arriving meanwhile wait behind it; a small gallery is done at once.
    const arrangement = this.model.takeArrangement();
    const small = arrangement.ids.length <= this.replaceItems.next;
    this._following.push({ replace: this.controller.liveReplacement(arrangement, this.replaceItems.next), sections: arrangement.sections });
    // At once when it is one part (a small gallery: shown as before, in this task); else from
    // the next task, the engine's sizing of its tables for the whole (~15 ms at 1M items) and
    // the swap each in a task of its own (`heavy`).
    this._runFollowing(small);
  },

  /// Reads the server's whole arrangement and makes the engine show it: after a change it
  /// could not follow (another window's change met ours) or one of ours the server refused.
  /// A body older than what the stream brought meanwhile is read again.
  async reload() {
    if (this.inParts) return; // one reload follows the last part
    const id = this.model.id;
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        const columns = await api.columns(id);
        if (this.model.id !== id) return;
        if (columns.version < this.model.version && attempt < 2) continue;
        this.model.loadColumns(columns);
        this.reconcile();
        return;
      }
    } catch (e) {
      this.toast(`Could not reload the gallery: ${e.message}`);
    }
  },

  /// The arrangement the engine shows (placeholders not counted) as sections of item data:
  /// what the detail view and the slideshow step through. With `confirmed`, the one the server
  /// confirmed: while a batch of ours is on its way, the last one seen with none (tests wait
  /// on it). O(n).
  sections({ confirmed = false } = {}) {
    if (confirmed && this.drag?.inFlight() > 0 && this._confirmed) return this._confirmed;
    const out = this.controller.snapshot().map((s) => ({ id: s.id, title: this.model.titles.get(s.id) ?? '',
      items: s.items.map((id) => this.model.items.get(id) ?? this.localItems.get(id)).filter(Boolean) }));
    if (!(this.drag?.inFlight() > 0)) this._confirmed = out;
    return out;
  },

  /// Makes the engine follow server changes the model just applied (`GalleryModel.apply`'s
  /// answer), where they are. While our own batches are on their way the engine already
  /// shows them: it is asked whether it shows this change (our batch coming back); with
  /// nothing on its way it applies the change. Anything else — a change it refuses, another
  /// window's change meeting ours, section changes — reloads the whole arrangement.
  ///
  /// A long change (a catch-up after many versions: 10,000 behind at 1M items is 10,000 stages)
  /// is cut into slices the engine applies in place (`Slicer`), a few milliseconds of them a task,
  /// so that frames go on meanwhile; changes arriving before the last slice wait behind it. A
  /// slice's cost is its items' sections re-laid out from where they change (at 1M items ~2 ms a
  /// move in a loaded browser): the number of changes a slice takes follows the time the last took.
  follow(applied) {
    const slicer = !(this.drag?.inFlight() > 0) && Slicer.of(applied);
    const queued = this._following.length > 0;
    this._following.push(slicer || applied);
    if (queued) return;
    if (!slicer) { this._following.length = 0; this.followNow(applied); return; }
    this.followed.sliced++;
    this._runFollowing();
  },

  /// Works through `_following` (slices of a long change, a whole arrangement handed over in
  /// parts, changes waiting behind them) for up to FOLLOW_TASK_MS a task, a task apart, drawn
  /// once a frame. The first task now with `now` (drawn at once when it finished everything).
  _runFollowing(now = false) {
    const generation = this._followGeneration;
    const step = (first) => {
      if (generation !== this._followGeneration) return; // reloaded or another gallery opened meanwhile
      const end = performance.now() + FOLLOW_TASK_MS;
      let ran = false;
      do {
        const head = this._following[0];
        // The sizing and the swap of a big gallery's replacement start a task (ran: something
        // ran in this one already): a part before either made one task of ~35 ms at 1M items.
        if (ran && head.replace?.heavy?.()) break;
        ran = true;
        if (head.replace) {
          const t = performance.now(), parts = this.replaceItems, size = parts.next, heavy = head.replace.heavy?.();
          let done;
          try { done = head.replace(size); } catch (e) {
            this.dropFollowing();
            this.toast(`Could not reload the gallery: ${e.message}`);
            return;
          }
          if (done) {
            this._following.shift();
            this.controller.sendSectionTitles(head.sections);
          } else if (!heavy) {
            // The next part's size from this one's time: about FOLLOW_SLICE_MS an engine call.
            const took = Math.max(0.1, performance.now() - t);
            parts.next = Math.max(parts.min, Math.min(parts.max, Math.floor(size * FOLLOW_SLICE_MS / took)));
          }
          continue;
        }
        let change = head;
        if (head instanceof Slicer) {
          change = head.next(this._sliceChanges);
          if (head.done) this._following.shift();
        } else {
          this._following.shift();
        }
        const t = performance.now();
        if (!this.followNow(change, { render: false })) return;
        if (head instanceof Slicer) {
          // The next slice's size from this one's time: about FOLLOW_SLICE_MS an engine call.
          const took = Math.max(0.1, performance.now() - t), size = this._sliceChanges;
          this._sliceChanges = Math.max(1, Math.min(SLICE_CHANGES, took > FOLLOW_SLICE_MS ? Math.floor(size * FOLLOW_SLICE_MS / took) : size * 2));
        }
      } while (this._following.length && performance.now() < end);
      if (first && !this._following.length) {
        this.forgetLocalItems();
        this.view.render();
      } else {
        this.renderSoon();
      }
      if (this._following.length) nextTask(step);
    };
    if (now) step(true); else nextTask(step);
  },

  /// Draws the engine's arrangement at the next frame, once however many slices of a long
  /// change were applied since (`follow`: several tasks may run in one frame).
  renderSoon() {
    if (this._renderQueued) return;
    this._renderQueued = true;
    requestAnimationFrame(() => {
      this._renderQueued = false;
      this.forgetLocalItems();
      this.view.render();
    });
  },

  /// Whether a long change is still being applied in slices (`follow`).
  catchingUp() { return this._following.length > 0; },

  /// Forgets the slices not applied yet: the engine is about to take a whole arrangement.
  dropFollowing() {
    this._following = [];
    this._followGeneration++;
  },

  /// `follow` for one change (or slice) at once. Answers false when the engine could not follow
  /// it and the gallery is read again.
  followNow(applied, { render = true } = {}) {
    const c = this.controller;
    this.picker.showName();
    if (applied.sections) c.sendSectionTitles(applied.sections);
    const ours = this.drag?.inFlight() > 0;
    const shown = !applied.stages.length
      || (ours ? applied.check != null && c.modelMatches(applied.check) : c.liveChanges(applied) != null);
    if (shown) this.followed.inPlace++;
    else { this.dropFollowing(); this.reload(); return false; }
    if (render) {
      this.forgetLocalItems();
      this.view.render();
    }
    return true;
  },

  forgetLocalItems() {
    for (const id of this.localItems.keys()) if (this.model.items.has(id)) this.localItems.delete(id);
  },

  /// "Sort this section by capture date / by name" (issue 12): the section of the focused
  /// photo, else the first one on screen. The server answers the order; the engine commits
  /// it as one move: one batch and version, streamed to other windows, one step of Undo.
  async sortSection(by) {
    const cells = this.view.last?.cells ?? [];
    const at = cells.find((c) => c.kind === 'item' && (c.flags & CellFlag.focused))
      ?? cells.filter((c) => c.kind === 'item' || c.kind === 'header').sort((a, b) => a.y - b.y)[0];
    const section = at && this.controller.snapshot()[at.section];
    if (!section) return;
    try {
      const answer = await api.sectionOrder(this.model.id, section.id, by);
      this.drag?.arrange(section.id, answer.items);
    } catch (e) {
      this.toast(`Could not sort: ${e.message}`);
    }
  },

  /// The engine's undo history into session storage (settings.js): after each batch, and as
  /// the page goes away.
  saveHistory() {
    clearTimeout(this._historyTimer);
    this._historyTimer = 0;
    if (this.model?.id == null || !(this.controller?.handle >= 0)) return;
    this.settings.saveHistory(this.model.id, this.controller.exportHistory());
  },

  // ---- batches: every arrangement change goes to the server as one atomic batch
  /// `sectionItems(id)`: the items a section deleted by these operations had when the engine
  /// took it away (they go to the trash with it, and count as named: parts.js).
  async commit(operations, { retry = true, sectionItems } = {}) {
    clearTimeout(this._historyTimer);
    this._historyTimer = setTimeout(() => this.saveHistory(), 300);
    if (operations.length > this.batchLimit || operations.reduce((n, op) => n + namedItems(op, sectionItems), 0) > this.batchLimit) {
      return this.commitInParts(operations, sectionItems);
    }
    try {
      const answer = await api.batch(this.model.id, this.model.version, operations);
      const changes = answer.changes ?? answer;
      this.applyChanges(changes);
      if (touchesTrash(changes)) this.trash.refresh();
      return answer;
    } catch (e) {
      const limit = e instanceof ApiError && e.status === 413 ? (e.body?.error?.maxItems ?? e.body?.error?.maxOperations) : undefined;
      if (limit > 0) {
        // More than this server takes in one batch (items named, or operations): in parts of its size.
        this.batchLimit = limit;
        return this.commitInParts(operations, sectionItems);
      }
      if (e instanceof ApiError && e.status === 409 && retry) {
        // Someone else changed the gallery first: catch up, then ask again (ops name ids).
        await this.catchUp();
        return this.commit(operations, { retry: false, sectionItems });
      }
      this.toast(e.message);
      await this.catchUp();
      throw e;
    }
  },

  /// A change naming more items than a batch may, as batches in order (parts.js). The engine
  /// already shows all of it, so the parts' answers and the live stream meanwhile go into the
  /// model only (each part names ids and neighbours, so it needs no base version); after the
  /// last part one reload makes the engine show what the server holds — the same whole reload
  /// one big batch's answer gets. A part refused leaves the parts before it done (each is
  /// atomic) and says how far it got.
  async commitInParts(operations, sectionItems) {
    const id = this.model.id;
    let batches = splitOperations(operations, this.batchLimit, sectionItems);
    let previous = null, answer = null, done = 0;
    this.inParts++;
    try {
      for (let k = 0; k < batches.length; k++) {
        const ops = placeAfter(batches[k], previous, answer);
        try {
          answer = await api.batch(id, undefined, ops);
        } catch (e) {
          const limit = e.body?.error?.maxItems;
          if (!(e instanceof ApiError && e.status === 413 && limit > 0 && limit < this.batchLimit)) throw e;
          // The server takes fewer than we thought: this part and the rest in smaller parts.
          this.batchLimit = limit;
          batches = [...batches.slice(0, k), ...splitOperations(batches.slice(k).flat(), limit, sectionItems)];
          k--;
          continue;
        }
        previous = ops;
        done++;
        if (this.model.id === id) this.applyChanges(answer.changes ?? answer);
      }
      return answer;
    } catch (e) {
      this.toast(done ? `Saved ${done} of ${batches.length} parts of the change: ${e.message}` : e.message);
      throw e;
    } finally {
      this.inParts--;
      if (!this.inParts && this.model.id === id) {
        await this.reload();
        this.trash.refresh();
      }
    }
  },

  /// Server changes (an answer to our batch, the live stream) into the page's copy of the
  /// gallery and the engine; a change that does not follow our version catches up.
  applyChanges(changes) {
    if (!changes || changes.toVersion == null) return;
    this.ingest.claim(changes.items);
    if (this.inParts) { this.model.apply(changes); return; } // the reload after the last part follows
    const applied = this.model.apply(changes);
    if (!applied) { this.catchUp(); return; }
    if (applied.skipped) return;
    this.follow(applied);
    this.detail.refresh();
  },

  async catchUp() {
    try {
      const answer = await api.changesSince(this.model.id, this.model.version);
      const applied = answer.changes ? this.model.apply(answer.changes) : false;
      if (applied && !applied.skipped) this.follow(applied);
      else if (!applied) {
        if (answer.snapshot) this.model.load(answer.snapshot);
        else this.model.loadColumns(await api.columns(this.model.id));
        this.reconcile();
      }
      this.trash.refresh();
    } catch (e) {
      this.toast(`Could not catch up: ${e.message}`);
    }
  },

};

app.start().catch((e) => {
  console.error(e);
  document.body.dataset.error = String(e);
  app.toast?.(`Could not start: ${e.message}`, 100000);
});
window.app = app;
