// Scrolling and snapping (F6–F8): every scroll position goes to the engine; when snapping is
// on, the engine says where a fling comes to rest. With paging, a wheel gesture or a
// PageDown/PageUp key turns exactly one page (the engine's pageStep), whatever the wheel's
// delta (issue 13). Resizes re-lay out the grid.
import { EventType, Snapping } from './protocol.js';
import { now } from './input.js';

/// Wheel events closer together than this (ms) are one gesture (a trackpad's swipe and its
/// momentum, or a quick run of wheel clicks): one page turn.
const GESTURE_GAP = 220;

export function installScrolling({ scroller, controller: c, view, state, run, registerTargets }) {
  // ---- scrolling and snapping (F6–F8)
  let lastScroll = { y: 0, t: 0, v: 0 };
  let settleTimer = 0;
  // A page turn in progress: where it heads, until when it may take.
  let turn = null;
  scroller.addEventListener('scroll', () => {
    const t = now();
    const y = scroller.scrollTop;
    if (t > lastScroll.t) lastScroll.v = (y - lastScroll.y) / (t - lastScroll.t);
    lastScroll = { y, t, v: lastScroll.v };
    run(c.event(EventType.scroll, [0, y, t]));
    if (turn) {
      if (Math.abs(y - turn.target) < 1 || performance.now() > turn.until) endTurn();
      return;
    }
    if (c.snapping !== Snapping.none && !state.snapping) {
      clearTimeout(settleTimer);
      settleTimer = setTimeout(() => snap(), 120);
    }
  }, { passive: true });
  // The page's own snap (a smooth scroll) is not followed by another; the user's scroll is,
  // even one begun while the snap still runs (it takes over from it).
  let snapEnd = 0;
  function snap() {
    if (view.last?.phase !== 'idle' || turn) return;
    const target = c.scrollTarget(scroller.scrollTop, lastScroll.v);
    if (Math.abs(target - scroller.scrollTop) < 1) return;
    state.snapping = true;
    scroller.scrollTo({ top: target, behavior: 'smooth' });
    clearTimeout(snapEnd);
    snapEnd = setTimeout(() => { state.snapping = false; }, 400);
  }
  const userScrolls = () => {
    if (!state.snapping || turn) return;
    clearTimeout(snapEnd);
    state.snapping = false;
  };
  for (const type of ['wheel', 'touchstart', 'pointerdown']) scroller.addEventListener(type, userScrolls, { passive: true, capture: true });
  scroller.addEventListener('keydown', (e) => {
    if (/^(Arrow|Page|Home|End| )/.test(e.key)) userScrolls();
  }, { capture: true });

  // ---- paging by gesture (issue 13)
  const paging = () => c.snapping === Snapping.paging && (view.last?.phase ?? 'idle') === 'idle';
  function turnPage(direction) {
    const from = turn ? turn.target : scroller.scrollTop;
    const target = c.pageStep(from, direction);
    if (Math.abs(target - scroller.scrollTop) < 1 && !turn) return;
    clearTimeout(settleTimer);
    turn = { target, until: performance.now() + 1200 };
    state.snapping = true;
    scroller.scrollTo({ top: target, behavior: 'smooth' });
    setTimeout(() => { if (turn?.target === target && performance.now() > turn.until - 10) endTurn(); }, 1210);
  }
  function endTurn() {
    if (!turn) return;
    if (Math.abs(scroller.scrollTop - turn.target) >= 1) scroller.scrollTop = turn.target;
    turn = null;
    lastScroll.v = 0;
    state.snapping = false;
  }
  let gesture = { last: -Infinity, direction: 0 };
  scroller.addEventListener('wheel', (e) => {
    if (!paging() || e.ctrlKey || Math.abs(e.deltaY) < Math.abs(e.deltaX)) return; // Ctrl+wheel: columns
    e.preventDefault();
    const t = e.timeStamp, direction = Math.sign(e.deltaY);
    if (!direction) return;
    const fresh = t - gesture.last > GESTURE_GAP || direction !== gesture.direction;
    gesture = { last: t, direction };
    if (fresh) turnPage(direction);
  }, { passive: false });
  scroller.addEventListener('keydown', (e) => {
    if (!paging() || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key !== 'PageDown' && e.key !== 'PageUp') return;
    e.preventDefault();
    if (!e.repeat || !turn) turnPage(e.key === 'PageDown' ? 1 : -1);
  });

  new ResizeObserver(() => {
    c.resize(scroller.clientWidth, scroller.clientHeight);
    registerTargets();
    view.schedule();
  }).observe(scroller);
  return { snap };
}
