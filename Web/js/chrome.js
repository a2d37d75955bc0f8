// The page's chrome (issue 13, phone first): one header row — the gallery's name as its
// picker, Add, View, Share, a ⋯ menu for the rest. Below 600 px the wide tools (undo, redo,
// sort, slideshow, download) move into the ⋯ menu and the buttons show icons; the view
// settings open in a sheet (a bottom sheet on a phone). Menus are disclosure buttons
// (aria-expanded) over a panel of buttons: Escape or a click elsewhere closes them, and the
// focus returns to the button.
const $ = (id) => document.getElementById(id);
export const NARROW = '(max-width: 599px)';

export class Chrome {
  constructor() {
    this.menus = [];
    this.narrow = window.matchMedia(NARROW);
  }

  wire() {
    this.menu('add-open', 'add-menu');
    this.menu('more-open', 'more-menu');
    $('upload-open').addEventListener('click', () => $('upload').click());
    this.place();
    this.narrow.addEventListener('change', () => this.place());
    // The row's room changes with the window and with what it holds (the name, the account).
    let width = innerWidth;
    window.addEventListener('resize', () => { if (innerWidth !== width) { width = innerWidth; this.place(); } });
    // The view sheet: a modal dialog (its own focus trap; Escape closes it).
    const sheet = $('view-sheet');
    $('view-open').addEventListener('click', () => this.openSheet());
    $('view-done').addEventListener('click', () => sheet.close());
    sheet.addEventListener('click', (e) => { if (e.target === sheet) sheet.close(); }); // the backdrop
    sheet.addEventListener('close', () => ($('view-open').offsetParent ? $('view-open') : $('more-open')).focus());
    document.addEventListener('click', (e) => {
      for (const m of this.menus) if (m.open && !m.wrap.contains(e.target)) this.close(m, false);
    });
    document.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') return;
      const open = this.menus.find((m) => m.open);
      if (open) { e.preventDefault(); e.stopPropagation(); this.close(open, true); }
    }, true);
    this.themeLabel();
    // Elements acting as buttons (the trash can) answer Enter and Space as buttons do.
    document.addEventListener('keydown', (e) => {
      const t = e.target;
      if ((e.key === 'Enter' || e.key === ' ') && t instanceof HTMLElement && t.getAttribute('role') === 'button' && t.tagName !== 'BUTTON') {
        e.preventDefault();
        t.click();
      }
    });
  }

  openSheet() {
    this.closeAll();
    const sheet = $('view-sheet');
    if (!sheet.open) sheet.showModal();
    $('layout-kind').focus();
  }

  /// A disclosure menu: `buttonID` toggles the panel `panelID`; choosing an item closes it.
  menu(buttonID, panelID) {
    const button = $(buttonID), panel = $(panelID);
    const m = { button, panel, wrap: button.parentElement, open: false };
    this.menus.push(m);
    button.addEventListener('click', (e) => {
      e.stopPropagation();
      if (m.open) { this.close(m, false); return; }
      this.closeAll();
      m.open = true;
      panel.hidden = false;
      button.setAttribute('aria-expanded', 'true');
      this.items(m)[0]?.focus();
    });
    panel.addEventListener('click', (e) => {
      const item = e.target.closest('button, a');
      if (item && panel.contains(item)) this.close(m, false);
    });
    // A select in the menu (sort) closes it once chosen.
    panel.addEventListener('change', () => this.close(m, false));
    panel.addEventListener('keydown', (e) => {
      if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
      const items = this.items(m);
      const k = items.indexOf(document.activeElement);
      if (k < 0 || document.activeElement.tagName === 'SELECT') return;
      e.preventDefault();
      items[(k + (e.key === 'ArrowDown' ? 1 : -1) + items.length) % items.length].focus();
    });
    return m;
  }

  items(m) {
    return [...m.panel.querySelectorAll('button, a, select')].filter((x) => !x.disabled && x.offsetParent !== null);
  }

  close(m, refocus) {
    if (!m.open) return;
    m.open = false;
    m.panel.hidden = true;
    m.button.setAttribute('aria-expanded', 'false');
    if (refocus) m.button.focus();
  }

  closeAll() { for (const m of this.menus) this.close(m, false); }

  /// The wide tools sit in the header when the row has room for them beside a readable
  /// gallery name (a desktop), else in the ⋯ menu (a phone, a narrow window).
  place() {
    const ids = ['undo', 'redo', 'sort-section', 'slideshow-open', 'download'];
    const nodes = ids.map((id) => (id === 'sort-section' ? $(id).closest('label') : $(id)));
    const put = (home) => { for (const node of nodes) if (node.parentElement !== home) home.append(node); };
    let wide = !this.narrow.matches;
    if (wide) {
      put($('wide-tools'));
      const bar = $('bar'), select = $('gallery-select');
      select.style.flex = 'none';
      const natural = select.offsetWidth;
      select.style.flex = '';
      // The picker's share of the row (it takes what the tools leave) must show the name.
      const room = select.parentElement.clientWidth - 24;
      wide = bar.scrollWidth <= bar.clientWidth + 1 && room >= Math.min(natural, 240);
    }
    if (!wide) put($('narrow-tools'));
    // A phone's header holds the picker, Add, Share and the menu: View goes into the menu.
    const view = $('view-open');
    if (this.narrow.matches) { if (view.parentElement !== $('narrow-tools')) $('narrow-tools').prepend(view); }
    else if (view.parentElement !== $('add-open').parentElement.parentElement) $('add-open').parentElement.after(view);
    document.body.classList.toggle('narrow', this.narrow.matches);
  }

  /// The theme item names what it switches to.
  themeLabel() {
    const dark = getComputedStyle(document.documentElement).getPropertyValue('--bg').trim() === '#111113';
    $('theme').textContent = dark ? 'Light theme' : 'Dark theme';
  }

  /// The open gallery's name, the page's level-one heading (the picker shows it visibly).
  heading(name) {
    const h = $('gallery-heading');
    if (h.dataset.name !== (name ?? '')) { h.dataset.name = name ?? ''; requestAnimationFrame(() => this.place()); }
    const text = name ? `${name} — Drag Gallery` : 'Drag Gallery';
    if (h.textContent !== text) h.textContent = text;
    if (name && document.title !== `${name} · Drag Gallery`) document.title = `${name} · Drag Gallery`;
  }
}
