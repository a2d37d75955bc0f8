// The user menu in the toolbar (issue 10): password, API tokens, two-factor sign-in, the admin's
// Users page, sign out, sign out everywhere. A share link's visitor has no account and
// no menu.
import { accounts } from './accounts.js';
import { explain } from './auth.js';
import { el } from './ui.js';
import { openTokens } from './tokens.js';
import { openTOTP } from './totp.js';
import { openPassword } from './password.js';
import { openUsers } from './users.js';

export function installUserMenu(session, toast) {
  const button = document.getElementById('user-menu');
  if (!session.user) { button.hidden = true; return; }
  button.hidden = false;
  const label = () => { button.textContent = `${session.user.name} ▾`; };
  label();
  let menu = null;
  const close = () => { menu?.remove(); menu = null; button.setAttribute('aria-expanded', 'false'); };
  const item = (text, run) => el('button', { type: 'button', role: 'menuitem', text, onclick: () => { close(); run(); } });
  const signOut = async (everywhere) => {
    try {
      await (everywhere ? accounts.logoutEverywhere() : accounts.logout());
      sessionStorage.removeItem('gallery.link');
      location.assign('/');
    } catch (e) { toast(explain(e)); }
  };
  button.addEventListener('click', (e) => {
    e.stopPropagation();
    if (menu) { close(); return; }
    menu = el('div', { class: 'menu', role: 'menu', id: 'user-menu-list', 'aria-label': 'Account' },
      el('p', { class: 'menu-head', text: `Signed in as ${session.user.name}${session.user.admin ? ' (admin)' : ''}` }),
      item('Change password…', () => openPassword(session, toast)),
      item('API tokens…', () => openTokens()),
      item(`Two-factor sign-in: ${session.user.totp ? 'on' : 'off'}…`, () => openTOTP(session, label)),
      session.user.admin && item('Users…', () => openUsers(session)),
      el('hr'),
      item('Sign out', () => signOut(false)),
      item('Sign out everywhere', () => signOut(true)));
    const r = button.getBoundingClientRect();
    menu.style.top = `${r.bottom + 4}px`;
    menu.style.right = `${Math.max(8, innerWidth - r.right)}px`;
    document.body.append(menu);
    button.setAttribute('aria-expanded', 'true');
    menu.querySelector('[role=menuitem]').focus();
  });
  document.addEventListener('click', (e) => { if (menu && !menu.contains(e.target)) close(); });
  document.addEventListener('keydown', (e) => { if (menu && e.key === 'Escape') { close(); button.focus(); } });
}
