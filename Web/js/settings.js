// What the page remembers (issue 13, point 5). The view — layout, columns, snapping, its
// limit and the drop mode — per user and gallery in local storage (a share link's visitor is
// keyed by the link); the undo and redo history per gallery in session storage, so a reload
// keeps it for the session. The history is the engine's (Op.controllerHistoryExport/Import):
// entries by id and place, so an undo after a reload is a real batch to the server.

/// Columns when nothing was chosen yet: from the width (2–3 on a phone).
export function defaultColumns(width) {
  if (width < 360) return 2;
  if (width < 600) return 3;
  return 4;
}

export const VIEW_DEFAULTS = { kind: 'waterfall', snapping: 'none', limit: 'viewAlignedAutomatic', mode: 'insert' };

export class Settings {
  /// session: the page's session ({user, link}).
  constructor(session) {
    this.who = session?.user ? `u${session.user.id}` : session?.link ? `l${session.link.id}` : 'anon';
  }

  viewKey(gallery) { return `gallery.view.${this.who}.${gallery}`; }
  historyKey(gallery) { return `gallery.history.${this.who}.${gallery}`; }

  /// The remembered view of `gallery` ({kind, columns, snapping, limit, mode}; columns may be
  /// absent: then the width decides).
  view(gallery) {
    try {
      const v = JSON.parse(localStorage.getItem(this.viewKey(gallery)) ?? 'null');
      return { ...VIEW_DEFAULTS, ...(v && typeof v === 'object' ? v : {}) };
    } catch { return { ...VIEW_DEFAULTS }; }
  }

  saveView(gallery, view) {
    if (gallery == null) return;
    try { localStorage.setItem(this.viewKey(gallery), JSON.stringify(view)); } catch { /* storage full or refused */ }
  }

  /// The saved history of `gallery` (the engine's export, numbers), or null.
  history(gallery) {
    try {
      const h = JSON.parse(sessionStorage.getItem(this.historyKey(gallery)) ?? 'null');
      return Array.isArray(h?.entries) ? h.entries : null;
    } catch { return null; }
  }

  saveHistory(gallery, entries) {
    if (gallery == null) return;
    try {
      if (!entries || (entries[0] === 0 && entries[1] === 0)) sessionStorage.removeItem(this.historyKey(gallery));
      else sessionStorage.setItem(this.historyKey(gallery), JSON.stringify({ entries }));
    } catch { /* storage full or refused: the history lives until the reload */ }
  }
}
