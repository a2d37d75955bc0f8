// Sections (issue 13): each header carries a menu (rename, new section below, move up, move
// down, delete) and can be dragged to reorder the sections — by the mouse anywhere on the
// header, by touch or pen on its grip. The engine decides: the index a dragged header takes
// (sectionDropIndex) and every change (sectionEdit: add, move, delete — delete puts the
// section's photos in the trash, one undo brings both back); the page sends what it answers,
// adding only a new section's title. Renames are data, sent as a renameSection batch.
const $ = (id) => document.getElementById(id);

export class Sections {
  /// deps: controller, view, scroller, content, run(effects) (drag.run: commits go to the
  /// server in order), send(operations) (one batch; answers the server's answer), model(),
  /// announce(text), toast(text), canEdit().
  constructor(deps) {
    this.deps = deps;
    this.c = deps.controller;
    this.view = deps.view;
    this.menuFor = null;   // the section id whose menu is open
    this.drag = null;      // a header being dragged: {section, el, pointer, startY, grabY, index, moved}
  }

  wire() {
    const content = this.deps.content;
    content.addEventListener('click', (e) => {
      const button = e.target.closest('.header-menu');
      if (!button) return;
      e.stopPropagation();
      this.openMenu(Number(button.closest('.header').dataset.sectionId), button);
    });
    content.addEventListener('pointerdown', (e) => this.down(e));
    window.addEventListener('pointermove', (e) => this.move(e));
    window.addEventListener('pointerup', (e) => this.up(e, false));
    window.addEventListener('pointercancel', (e) => this.up(e, true));
    const menu = $('section-menu');
    menu.addEventListener('click', (e) => {
      const action = e.target.closest('button')?.dataset.action;
      if (!action) return;
      const id = this.menuFor;
      this.closeMenu(false);
      this.act(action, id);
    });
    menu.addEventListener('keydown', (e) => {
      const items = [...menu.querySelectorAll('button:not([disabled])')];
      const k = items.indexOf(document.activeElement);
      if (e.key === 'Escape') { e.preventDefault(); this.closeMenu(true); }
      else if (e.key === 'ArrowDown') { e.preventDefault(); items[(k + 1) % items.length]?.focus(); }
      else if (e.key === 'ArrowUp') { e.preventDefault(); items[(k - 1 + items.length) % items.length]?.focus(); }
      else if (e.key === 'Tab') this.closeMenu(false);
    });
    document.addEventListener('pointerdown', (e) => { if (this.menuFor != null && !e.target.closest('#section-menu, .header-menu')) this.closeMenu(false); });
  }

  sectionIndex(id) { return this.deps.model().sectionList.findIndex((s) => s.id === id); }
  title(id) { return this.deps.model().titles.get(id) || 'Untitled section'; }

  // ---- the header's menu
  openMenu(id, button) {
    const menu = $('section-menu');
    if (this.menuFor === id && !menu.hidden) { this.closeMenu(true); return; }
    this.menuFor = id;
    this.menuButton = button;
    const k = this.sectionIndex(id), n = this.deps.model().sectionList.length;
    menu.querySelector('[data-action="up"]').disabled = k <= 0;
    menu.querySelector('[data-action="down"]').disabled = k < 0 || k >= n - 1;
    menu.setAttribute('aria-label', `Section ${this.title(id)}`);
    menu.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    const r = button.getBoundingClientRect(), w = menu.offsetWidth, h = menu.offsetHeight;
    menu.style.left = `${Math.max(8, Math.min(innerWidth - w - 8, r.right - w))}px`;
    menu.style.top = `${r.bottom + 4 + h > innerHeight - 8 ? Math.max(8, r.top - h - 4) : r.bottom + 4}px`;
    menu.querySelector('button:not([disabled])')?.focus();
  }

  closeMenu(refocus) {
    $('section-menu').hidden = true;
    this.menuButton?.setAttribute('aria-expanded', 'false');
    if (refocus) this.menuButton?.focus();
    this.menuFor = null;
  }

  act(action, id) {
    const k = this.sectionIndex(id);
    switch (action) {
      case 'rename': this.rename(id); break;
      case 'add': this.add(k + 1); break;
      case 'up': this.moveTo(id, k - 1); break;
      case 'down': this.moveTo(id, k + 1); break;
      case 'delete': this.remove(id); break;
    }
  }

  /// A new section below (the engine says where; the server names it), then its title is edited.
  async add(index) {
    const effects = this.c.sectionEdit('add', null, index);
    const commit = effects.find((e) => e.type === 'commit');
    if (!commit) return;
    for (const op of commit.operations) if (op.op === 'createSection') op.title = 'New section';
    try {
      const answer = await this.deps.send(commit.operations);
      const id = answer?.createdSections?.[0];
      this.deps.announce('New section added.');
      if (id != null) await this.whenDrawn(id).then(() => this.rename(id));
    } catch { /* the user was told */ }
  }

  moveTo(id, index) {
    const effects = this.c.sectionEdit('move', id, index);
    if (!effects.length) return;
    this.deps.run(effects);
    this.deps.announce(`${this.title(id)} moved to position ${index + 1} of ${this.deps.model().sectionList.length}.`);
  }

  remove(id) {
    const title = this.title(id);
    const effects = this.c.sectionEdit('delete', id, 0);
    if (!effects.length) { this.deps.toast('Wait until the photos loading into this section are in.'); return; }
    const commit = effects.find((e) => e.type === 'commit');
    const n = commit?.removed.length ?? 0;
    this.deps.run(effects);
    const said = n ? `Section “${title}” deleted; its ${n} photo${n === 1 ? ' is' : 's are'} in the trash. Undo brings ${n === 1 ? 'it' : 'them'} back.`
      : `Empty section “${title}” deleted.`;
    this.deps.toast(said);
    this.deps.announce(said);
  }

  /// Waits (a few frames at most) until the section's header is drawn.
  whenDrawn(id) {
    return new Promise((resolve) => {
      let tries = 0;
      const look = () => {
        if (this.headerElement(id) || ++tries > 120) resolve();
        else requestAnimationFrame(look);
      };
      look();
    });
  }

  headerElement(id) { return this.deps.content.querySelector(`.header[data-section-id="${id}"]:not([hidden])`); }

  /// The title edited in place: Enter or leaving the field saves, Escape cancels.
  rename(id) {
    const header = this.headerElement(id);
    if (!header) return;
    header.classList.add('renaming');
    this.view.renaming = id;
    const input = document.createElement('input');
    input.className = 'header-input';
    input.value = this.deps.model().titles.get(id) ?? '';
    input.setAttribute('aria-label', 'Section title');
    input.maxLength = 200;
    header.appendChild(input);
    input.focus();
    input.select();
    let done = false;
    const finish = async (save) => {
      if (done) return;
      done = true;
      const title = input.value.trim();
      input.remove();
      header.classList.remove('renaming');
      this.view.renaming = null;
      this.deps.scroller.focus({ preventScroll: true });
      if (!save || !title || title === this.deps.model().titles.get(id)) return;
      try {
        await this.deps.send([{ op: 'renameSection', section: id, title }]);
        this.deps.announce(`Section renamed ${title}.`);
      } catch { /* the user was told */ }
    };
    input.addEventListener('keydown', (e) => {
      e.stopPropagation();
      if (e.key === 'Enter') { e.preventDefault(); finish(true); }
      else if (e.key === 'Escape') { e.preventDefault(); finish(false); }
    });
    input.addEventListener('blur', () => finish(true));
  }

  // ---- reordering by dragging a header
  down(e) {
    const header = e.target.closest('.header');
    if (!header || e.button !== 0 || e.target.closest('.header-menu, .header-input') || !this.deps.canEdit()) return;
    // Touch and pen drag by the grip (elsewhere the finger scrolls); the mouse anywhere on the header.
    if (e.pointerType !== 'mouse' && !e.target.closest('.header-grip')) return;
    e.preventDefault();
    const id = Number(header.dataset.sectionId);
    const box = header.getBoundingClientRect();
    this.drag = { section: id, el: header, pointer: e.pointerId, startY: e.clientY, grabY: e.clientY - box.top, index: this.sectionIndex(id), moved: false,
      width: box.width, height: box.height };
  }

  move(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.pointer) return;
    if (!d.moved && Math.abs(e.clientY - d.startY) < 4) return;
    d.clientY = e.clientY;
    if (!d.moved) this.edgeScrolling(d);
    this.place(d);
  }

  /// Near the top or bottom edge the grid scrolls on the engine's auto-scroll curve (as for a
  /// dragged photo), a frame at a time while the header is held there; the header stays under
  /// the pointer and its drop line follows.
  edgeScrolling(d) {
    const frame = () => {
      if (this.drag !== d) { this.c.edgeScroll(null, performance.now() / 1000); return; }
      const s = this.deps.scroller.getBoundingClientRect();
      const dy = this.c.edgeScroll(d.clientY - s.top, performance.now() / 1000);
      if (dy) { this.deps.scroller.scrollTop += dy; this.place(d); }
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }

  /// The lifted header under the pointer, where it would land and the line that shows it.
  place(d) {
    if (!d.moved) {
      d.moved = true;
      document.body.classList.add('dragging-section');
      d.line = document.createElement('div');
      d.line.className = 'section-drop-line';
      // A copy of the header follows the pointer (the grid redraws the header itself each frame).
      d.ghost = d.el.cloneNode(true);
      d.ghost.className = 'header lifted-header';
      d.ghost.removeAttribute('data-section-id');
      d.el.classList.add('header-source');
      this.view.headerSource = d.section;
      this.deps.content.append(d.line, d.ghost);
    }
    const s = this.deps.scroller.getBoundingClientRect();
    const scroller = this.deps.scroller;
    const top = d.clientY - d.grabY - s.top + scroller.scrollTop;   // the header's top, in the content
    // Drawn within the grid's view even when the pointer goes past its edge (to scroll): the
    // header carried stays in sight.
    const shown = Math.max(scroller.scrollTop, Math.min(top, scroller.scrollTop + scroller.clientHeight - d.height));
    d.ghost.style.transform = `translate3d(0,${shown}px,0)`;
    d.ghost.style.width = `${d.width}px`;
    d.index = this.c.sectionDropIndex(d.section, top);
    // The line where it would land: above the header of the section it would come before.
    const others = this.deps.model().sectionList.filter((x) => x.id !== d.section);
    const next = others[d.index];
    const cells = this.view.last?.cells ?? [];
    const at = next ? cells.find((c) => c.kind === 'header' && c.id === next.id)?.y : Math.ceil(this.view.last?.height ?? 0);
    d.line.hidden = at == null;
    if (at != null) d.line.style.transform = `translate3d(0,${Math.max(0, at - 3)}px,0)`;
  }

  up(e, cancelled) {
    const d = this.drag;
    if (!d || e.pointerId !== d.pointer) return;
    this.drag = null;
    if (!d.moved) return;
    d.line?.remove();
    d.ghost?.remove();
    d.el.classList.remove('header-source');
    this.view.headerSource = null;
    document.body.classList.remove('dragging-section');
    this.view.schedule();
    if (cancelled || d.index == null || d.index < 0 || d.index === this.sectionIndex(d.section)) return;
    this.moveTo(d.section, d.index);
  }
}
