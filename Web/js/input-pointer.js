// Touch and pen: drags with a long press, driven by pointer events (the engine lifts after
// its long-press time). The mouse only taps here; its drags are HTML5 (input-dragdrop.js).
import { EventType } from './protocol.js';
import { mods, pointerKind, pointIn } from './input.js';

export function installPointerInput({ scroller, controller: c, view, state, run }) {
  const point = (e) => pointIn(scroller, e);
  // ---- pointers: touch and pen drag with a long press; the mouse only taps here
  scroller.addEventListener('pointerdown', (e) => {
    if (e.button !== 0 || !e.target.closest('.cell')) return;
    state.downMods = mods(e);
    scroller.focus({ preventScroll: true });
    run(c.event(EventType.pointerDown, [e.pointerId, ...point(e), e.timeStamp / 1000, pointerKind(e), mods(e)]));
  });
  scroller.addEventListener('pointermove', (e) => {
    if (state.html5 || (e.pointerType === 'mouse' && !e.buttons)) return;
    // A mouse drag is the browser's (HTML5); only touch and pen moves drive the engine here.
    if (e.pointerType === 'mouse') return;
    run(c.event(EventType.pointerMove, [e.pointerId, ...point(e), e.timeStamp / 1000, pointerKind(e), mods(e)]));
  });
  window.addEventListener('pointerup', (e) => {
    if (state.html5) return;
    run(c.event(EventType.pointerUp, [e.pointerId, ...point(e), e.timeStamp / 1000, pointerKind(e), mods(e)]));
  });
  scroller.addEventListener('pointercancel', (e) => {
    if (state.html5) return; // the browser cancels the pointer when its own drag starts
    run(c.event(EventType.pointerCancel, [e.pointerId, e.timeStamp / 1000]));
  });
  // Once the engine lifted a touch, the finger drags the item instead of scrolling.
  scroller.addEventListener('touchmove', (e) => {
    const phase = view.last?.phase;
    if (phase === 'lifted' || phase === 'dragging') e.preventDefault();
  }, { passive: false });
  scroller.addEventListener('contextmenu', (e) => { if (e.target.closest('.cell')) e.preventDefault(); });
}
