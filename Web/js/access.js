// Roles in the page (issue 10). The open gallery's role (owner, editor, viewer; a share
// link's visitor has the link's role) decides which controls exist, and a read-only role
// tells the engine (Op.controllerReadOnly) so that no pointer, touch or keyboard drag lifts
// anything and no drop or paste adds anything — not merely hidden by CSS. When the server
// takes access away (the live stream's `revoked`, or a 401/410 answer), the page says so
// plainly and the grid is no longer usable.
import { el } from './ui.js';
import { EventType } from './protocol.js';

const $ = (id) => document.getElementById(id);
const EDIT = new Set(['owner', 'editor']);

export class Access {
  /// deps: controller (the engine's), run(effects), galleries() (the gallery list with roles),
  /// ended() (stop what follows the gallery: the live stream, the slideshow).
  constructor(deps, session) {
    this.deps = deps;
    this.session = session;
    this.role = null;
    this.readOnly = false;
    this.gone = false;
    // A viewer's page refuses drags and drops before the grid's own handlers see them:
    // the browser would otherwise start its drag image, or open a dropped file.
    const refuse = (e) => {
      if (!this.readOnly || e.target?.closest?.('dialog, .gate, .filedrop')) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'none';
      e.stopImmediatePropagation();
      // The press that began this refused drag is no tap either (the grid never saw the mouse move).
      if (e.type === 'dragstart') this.deps.run(this.deps.controller.event(EventType.pointerCancel, [0, e.timeStamp / 1000]));
    };
    for (const type of ['dragstart', 'dragenter', 'dragover', 'drop']) window.addEventListener(type, refuse, true);
    document.addEventListener('paste', (e) => { if (this.readOnly) e.stopImmediatePropagation(); }, true);
    window.addEventListener('gallery:denied', (e) => this.denied(e.detail));
  }

  /// The caller's role on gallery `id`: from the gallery list (or the link).
  roleOf(id) {
    if (this.session.link) return this.session.link.role;
    return this.deps.galleries()?.find((g) => g.id === id)?.role ?? 'viewer';
  }

  can(need) {
    switch (need) {
      case 'owner': return this.role === 'owner';
      case 'edit': return EDIT.has(this.role);
      case 'account': return !!this.session.user;
      case 'download': return this.session.link ? !!this.session.link.allowDownload : true;
      case 'metadata': return this.session.link ? !!this.session.link.showMetadata : true;
      default: return true;
    }
  }

  /// Applies the role of the gallery just opened: controls, the engine's read-only flag.
  apply(id) {
    this.role = this.roleOf(id);
    document.body.dataset.role = this.role;
    for (const node of document.querySelectorAll('[data-needs]')) {
      node.hidden = !node.dataset.needs.split(' ').every((n) => this.can(n));
    }
    $('role-badge').textContent = this.session.link
      ? `Shared with you · ${this.role}` : this.role === 'owner' ? '' : this.role;
    $('role-badge').hidden = !$('role-badge').textContent;
    $('download').href = `/api/galleries/${id}/download`;
    this.setReadOnly(this.gone || !this.can('edit'));
  }

  setReadOnly(on) {
    this.readOnly = on;
    const effects = this.deps.controller.setReadOnly(on, performance.now() / 1000);
    if (effects.length) this.deps.run(effects);
  }

  /// A request answered 401 or 410 (or 403 for reading the gallery): access has ended.
  denied({ status, url }) {
    if (this.gone || document.body.dataset.mode === 'gate') return;
    const path = new URL(url, location.href).pathname;
    if (!path.startsWith('/api/galleries') && !path.startsWith('/api/items') && !path.startsWith('/api/links')) return;
    const reading = /^\/api\/galleries\/\d+(\/(columns|changes|events))?$/.test(path);
    if (status === 401 || status === 410 || (status === 403 && reading)) {
      this.revoked(status === 410 ? 'This share link no longer works.' : this.session.link
        ? 'This share link was revoked.' : 'You are signed out, or your access to this gallery has ended.');
    }
  }

  /// Access has ended: say so, stop following, and make the grid unusable.
  revoked(message) {
    if (this.gone) return;
    this.gone = true;
    this.deps.ended();
    this.setReadOnly(true);
    for (const d of document.querySelectorAll('dialog[open]')) d.close();
    for (const id of ['scroller', 'trash', 'bar', 'detail']) { const n = $(id); if (n) n.inert = true; }
    document.body.dataset.revoked = '1';
    const text = /[.!?]$/.test(message) ? message : `${message}.`;
    $('notice').replaceChildren(el('div', { class: 'notice-card', role: 'alert' },
      el('h1', { text: 'Access ended' }),
      el('p', { class: 'notice-message', text: text.charAt(0).toUpperCase() + text.slice(1) }),
      this.session.link ? el('p', { text: 'Ask the person who shared it for a new link.' })
        : el('a', { class: 'button primary', href: '/', text: 'Continue' })));
    $('notice').hidden = false;
  }
}
