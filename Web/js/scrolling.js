// Scrolling and snapping (F6–F8): every scroll position goes to the engine; when snapping is
// on, the engine says where a fling comes to rest. Resizes re-lay out the grid.
import { EventType, Snapping } from './protocol.js';
import { now } from './input.js';

export function installScrolling({ scroller, controller: c, view, state, run, registerTargets }) {
  // ---- scrolling and snapping (F6–F8)
  let lastScroll = { y: 0, t: 0, v: 0 };
  let settleTimer = 0;
  scroller.addEventListener('scroll', () => {
    const t = now();
    const y = scroller.scrollTop;
    if (t > lastScroll.t) lastScroll.v = (y - lastScroll.y) / (t - lastScroll.t);
    lastScroll = { y, t, v: lastScroll.v };
    run(c.event(EventType.scroll, [0, y, t]));
    if (c.snapping !== Snapping.none && !state.snapping) {
      clearTimeout(settleTimer);
      settleTimer = setTimeout(() => snap(), 120);
    }
  }, { passive: true });
  function snap() {
    if (view.last?.phase !== 'idle') return;
    const target = c.scrollTarget(scroller.scrollTop, lastScroll.v);
    if (Math.abs(target - scroller.scrollTop) < 1) return;
    state.snapping = true;
    scroller.scrollTo({ top: target, behavior: 'smooth' });
    setTimeout(() => { state.snapping = false; }, 400);
  }

  new ResizeObserver(() => {
    c.resize(scroller.clientWidth, scroller.clientHeight);
    registerTargets();
    view.schedule();
  }).observe(scroller);
  return { snap };
}
