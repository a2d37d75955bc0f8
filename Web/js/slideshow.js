// The slideshow (issue 10, "present it"): the gallery's pictures in the arranged order, one
// at a time, full screen; arrows or a swipe step, Space plays and pauses, the interval is
// chosen, Esc closes. Every role may present; nothing here changes the gallery.
import { el } from './ui.js';

const INTERVALS = [2, 3, 5, 10];

export class Slideshow {
  /// deps: sections() (the arrangement shown, as item data), toast(text).
  constructor(deps) {
    this.deps = deps;
    this.index = 0;
    this.timer = 0;
    this.seconds = 3;
    this.root = null;
    this.onKey = (e) => {
      if (!this.root) return;
      e.stopPropagation(); // keys belong to the slideshow while it shows, not to the grid behind it
      if (e.key === 'Escape') { e.preventDefault(); this.close(); }
      else if (e.key === 'ArrowRight') { e.preventDefault(); this.step(1); }
      else if (e.key === 'ArrowLeft') { e.preventDefault(); this.step(-1); }
      else if (e.key === ' ') { e.preventDefault(); this.toggle(); }
    };
  }

  /// The pictures in the arranged order (sections in order, items in order).
  items() {
    return this.deps.sections().flatMap((s) => s.items).filter((it) => it.state !== 'failed' && it.thumbnails);
  }

  open(startID) {
    const items = this.items();
    if (!items.length) { this.deps.toast('No pictures to show yet.'); return; }
    this.close();
    this.index = Math.max(0, items.findIndex((it) => it.id === startID));
    const interval = el('select', { 'aria-label': 'Seconds per picture', onchange: (e) => { this.seconds = Number(e.target.value); if (this.timer) this.play(); } },
      INTERVALS.map((s) => el('option', { value: s, defaultSelected: s === this.seconds, text: `${s} s` })));
    this.playButton = el('button', { type: 'button', class: 'slide-play', onclick: () => this.toggle(), text: 'Play' });
    this.image = el('img', { class: 'slide-image', alt: '' });
    this.caption = el('p', { class: 'slide-caption', 'aria-live': 'polite' });
    this.root = el('section', { class: 'slideshow', role: 'dialog', 'aria-modal': 'true', 'aria-label': 'Slideshow', tabindex: '-1' },
      el('figure', {}, this.image, this.caption),
      el('button', { type: 'button', class: 'slide-nav prev', 'aria-label': 'Previous picture', text: '‹', onclick: () => this.step(-1) }),
      el('button', { type: 'button', class: 'slide-nav next', 'aria-label': 'Next picture', text: '›', onclick: () => this.step(1) }),
      el('div', { class: 'slide-controls' }, this.playButton, interval,
        el('button', { type: 'button', class: 'slide-close', text: 'Close', title: 'Close (Esc)', onclick: () => this.close() })));
    this.swipe(this.root);
    document.body.append(this.root);
    document.addEventListener('keydown', this.onKey, true);
    this.root.focus();
    this.root.requestFullscreen?.().catch(() => {}); // refused without a user gesture: the overlay covers the window anyway
    this.root.addEventListener('fullscreenchange', () => { if (!document.fullscreenElement && this.root && this.leavingFullscreen) this.close(); });
    this.show();
  }

  /// A horizontal swipe (touch or pen) steps; taps on the buttons are theirs.
  swipe(root) {
    let start = null;
    root.addEventListener('pointerdown', (e) => { if (e.pointerType !== 'mouse' && !e.target.closest('button, select')) start = { x: e.clientX, y: e.clientY }; });
    root.addEventListener('pointerup', (e) => {
      if (!start) return;
      const dx = e.clientX - start.x, dy = e.clientY - start.y;
      start = null;
      if (Math.abs(dx) > 40 && Math.abs(dx) > Math.abs(dy)) this.step(dx < 0 ? 1 : -1);
    });
    root.addEventListener('pointercancel', () => { start = null; });
  }

  show() {
    const items = this.items();
    if (!items.length) { this.close(); return; }
    this.index = (this.index + items.length) % items.length;
    const item = items[this.index];
    this.current = item.id;
    this.image.src = item.thumbnails.detail;
    this.image.alt = item.title;
    this.caption.textContent = `${item.title} — ${this.index + 1} of ${items.length}`;
    this.root.dataset.item = item.id;
  }

  step(delta) {
    // The arrangement may have changed meanwhile: continue from the picture shown.
    const items = this.items();
    const here = items.findIndex((it) => it.id === this.current);
    this.index = (here < 0 ? this.index : here) + delta;
    this.show();
    if (this.timer) this.play(); // a manual step restarts the interval
  }

  play() {
    clearInterval(this.timer);
    this.timer = setInterval(() => this.step(1), this.seconds * 1000);
    this.playButton.textContent = 'Pause';
    this.root.dataset.playing = '1';
  }

  pause() {
    clearInterval(this.timer);
    this.timer = 0;
    if (!this.root) return;
    this.playButton.textContent = 'Play';
    delete this.root.dataset.playing;
  }

  toggle() { if (this.timer) this.pause(); else this.play(); }

  close() {
    if (!this.root) return;
    this.pause();
    document.removeEventListener('keydown', this.onKey, true);
    if (document.fullscreenElement) document.exitFullscreen?.().catch(() => {});
    this.root.remove();
    this.root = null;
    document.getElementById('scroller')?.focus();
  }
}
