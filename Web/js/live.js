// Live updates (B2): one EventSource per open gallery. Every event carries the changes of
// one version (or a catch-up diff from the version we reconnect with); the engine applies
// them. EventSource reconnects by itself; we reconnect with our current version so the
// server answers a diff from there, not a full reload.
import { touchesTrash } from './gallery.js';
export class LiveStream {
  /// deps: version() (the version the page holds), changes(json) (a version's changes),
  /// snapshot(json) (the whole gallery), reload() (the version we had is older than the
  /// server's window: read the gallery's columns again), trashChanged(), revoked(message), toast(text).
  constructor(deps) {
    this.deps = deps;
    this.source = null;
    this.indicator = document.getElementById('live-state');
  }

  follow(id, version) {
    this.close();
    this.id = id;
    const source = (this.source = new EventSource(`/api/galleries/${id}/events?since=${version}`));
    source.onopen = () => this.indicator.classList.add('on');
    source.onerror = () => {
      this.indicator.classList.remove('on');
      // Reconnect ourselves with the version we have (EventSource would reuse the old URL).
      if (source.readyState === EventSource.CLOSED || source.readyState === EventSource.CONNECTING) {
        source.close();
        clearTimeout(this.retry);
        this.retry = setTimeout(() => { if (this.source === source) this.reconnect(source); }, 1000);
      }
    };
    const handle = (e) => this.receive(e);
    source.onmessage = handle;
    for (const type of ['changes', 'snapshot', 'reload', 'deleted']) source.addEventListener(type, handle);
    // Access ended (a revoked link or session, a removed member): the server closes the stream.
    source.addEventListener('revoked', (e) => {
      this.close();
      let message = 'Your access to this gallery has ended';
      try { message = JSON.parse(e.data).message || message; } catch { /* keep the plain message */ }
      this.deps.revoked(message);
    });
  }

  /// EventSource does not say why a connection failed: a server that is away (try again) and
  /// access that ended while we were away (a revoked link, signed out elsewhere, removed as a
  /// member: the server refuses the stream) look the same. Ask before reconnecting.
  async reconnect(source) {
    let gone = null;
    try {
      const r = await fetch('/api/galleries', { cache: 'no-store' });
      if (r.status === 401 || r.status === 403 || r.status === 410) gone = 'Your access to this gallery has ended';
      else if (r.ok && !(await r.json()).some((g) => g.id === this.id)) gone = 'Your access to this gallery has ended';
    } catch { /* offline or the server is restarting: try again */ }
    if (this.source !== source) return;
    if (gone) { this.close(); this.deps.revoked(gone); return; }
    this.follow(this.id, this.deps.version());
  }

  receive(e) {
    if (e.type === 'deleted') { this.deps.toast('This gallery was deleted.'); this.close(); this.deps.deleted?.(); return; }
    let data;
    try { data = JSON.parse(e.data); } catch { return; }
    if (e.type === 'reload') {
      if (data.version !== this.deps.version()) { this.deps.reload(); this.deps.trashChanged(); }
    } else if (data.stages) {
      this.deps.changes(data);
      if (touchesTrash(data)) this.deps.trashChanged();
    } else if (data.sections) {
      if (data.version === this.deps.version()) return;
      this.deps.snapshot(data);
      this.deps.trashChanged();
    }
  }

  close() {
    this.source?.close();
    this.source = null;
    this.indicator.classList.remove('on');
  }
}
