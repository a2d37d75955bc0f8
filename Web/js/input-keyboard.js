// The keyboard drag (B3) and history keys (B4): arrows, Space, Enter, Escape and Tab go to the
// engine; Enter on a resting grid opens the focused photo; Ctrl/Cmd+Z, Shift+Z and Y undo and redo.
import { EventType, Key, CellFlag } from './protocol.js';
import { mods } from './input.js';

const KEYS = { ' ': Key.space, Enter: Key.enter, Escape: Key.escape, ArrowUp: Key.up, ArrowDown: Key.down,
  ArrowLeft: Key.left, ArrowRight: Key.right, Tab: Key.tab };

export function installKeyboardInput({ scroller, controller: c, view, run, model, openDetail }) {
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
    // Escape on a resting grid in select mode ends select mode (select.js), as its ✕ does.
    if (key === KEYS.Escape && view.last?.phase === 'idle' && document.body.classList.contains('selecting')) return;
    e.preventDefault();
    // Enter on a resting grid opens the focused photo (as a click does); Space lifts it.
    if (key === KEYS.Enter && view.last?.phase === 'idle' && !e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey) {
      const focused = view.last.cells.find((x) => x.kind === 'item' && (x.flags & CellFlag.focused));
      if (focused && model().items.has(focused.id)) { openDetail(focused.id); return; }
    }
    run(c.event(EventType.key, [key, mods(e), e.timeStamp / 1000]));
    view.revealFocus = true;
    view.schedule();
  });
  function firstVisible() { return view.last?.cells.find((x) => x.kind === 'item')?.id ?? -1; }
  scroller.addEventListener('focus', () => { if (view.last && !view.last.cells.some((x) => x.flags & CellFlag.focused)) { c.focus(firstVisible()); view.schedule(); } });
}
