// The way in (issue 10): before the grid loads, the page asks GET /api/session. Signed in,
// it goes on; otherwise it shows the sign-in form (a code field when the account has a
// second factor), the first-account form at /setup#TOKEN, or, at /s/<token>, opens the
// share link (a password prompt when it has one; a plain message when it expired or was
// revoked). `enter` resolves the session once there is one.
import { answer } from './api.js';
import { accounts } from './accounts.js';
import { el, field, formError } from './ui.js';

const gate = () => document.getElementById('gate');

/// Shows `card` (a form or a message) in the gate and the gate alone.
function show(card) {
  document.body.dataset.mode = 'gate';
  gate().replaceChildren(el('div', { class: 'gate-card' }, el('p', { class: 'brand', text: 'Drag Gallery' }), card));
  gate().hidden = false;
  card.querySelector('input:not([type=hidden])')?.focus();
}

function leave() {
  gate().hidden = true;
  gate().replaceChildren();
  delete document.body.dataset.mode;
}

/// A message for an answer the user can act on (429 says when to try again).
export function explain(e) {
  if (e.status === 429 && e.body?.error?.retryAfter) return `Too many attempts: try again in ${Math.ceil(e.body.error.retryAfter)} s.`;
  if (e.status === undefined && !(e instanceof TypeError)) return e.message; // the page's own message
  if (!e.status) return 'The server cannot be reached. Check the connection and try again.';
  const m = e.message || `HTTP ${e.status}`;
  return m.charAt(0).toUpperCase() + m.slice(1) + (/[.!?]$/.test(m) ? '' : '.');
}

/// A form whose submit runs `submit(values)`; its error (an ApiError) shows in the form.
/// Resolves what `submit` answers once it succeeds.
function ask(title, intro, fields, button, submit) {
  return new Promise((resolve) => {
    const form = el('form', { class: 'gate-form', novalidate: true },
      el('h1', { text: title }), intro && el('p', { class: 'intro', text: intro }), ...fields,
      el('button', { type: 'submit', class: 'primary', text: button }));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const values = Object.fromEntries(new FormData(form));
      const go = form.querySelector('button[type=submit]');
      go.disabled = true;
      formError(form, null);
      try {
        resolve(await submit(values, form));
      } catch (error) {
        if (error?.keepForm) return; // submit replaced the form
        formError(form, explain(error));
      } finally {
        go.disabled = false;
      }
    });
    show(form);
  });
}

async function signIn() {
  let needsCode = false;
  const fields = () => [
    field('Name', { name: 'name', autocomplete: 'username', required: true, autocapitalize: 'none' }),
    field('Password', { name: 'password', type: 'password', autocomplete: 'current-password', required: true }),
  ];
  return ask('Sign in', null, fields(), 'Sign in', async (v, form) => {
    try {
      await accounts.login(v.name.trim(), v.password, needsCode ? v.code?.trim() : undefined);
    } catch (e) {
      if (e.body?.error?.codeRequired && !needsCode) {
        // The password was right: ask for the authenticator's code in the same form.
        needsCode = true;
        const code = field('Code from your authenticator app (or a recovery code)',
          { name: 'code', autocomplete: 'one-time-code', inputmode: 'numeric', required: true });
        form.querySelector('button[type=submit]').before(code);
        code.querySelector('input').focus();
        formError(form, explain(e));
        throw Object.assign(new Error('code'), { keepForm: true });
      }
      throw e;
    }
    return accounts.session();
  });
}

async function setup(session) {
  const token = location.hash.slice(1);
  if (!session.setup) {
    show(el('div', { class: 'gate-message' }, el('h1', { text: 'Already set up' }),
      el('p', { text: 'The first account exists already.' }), el('a', { href: '/', class: 'button primary', text: 'Sign in' })));
    return new Promise(() => {});
  }
  if (!token) {
    show(el('div', { class: 'gate-message' }, el('h1', { text: 'Setup link incomplete' }),
      el('p', { text: 'Open the whole setup link printed in the server’s log (it ends with #…).' })));
    return new Promise(() => {});
  }
  const answer = await ask('Create the first account', 'This account is an admin and owns every gallery already here.', [
    field('Name', { name: 'name', autocomplete: 'username', required: true, autocapitalize: 'none' }),
    field('Password (8 to 72 bytes)', { name: 'password', type: 'password', autocomplete: 'new-password', required: true, minlength: 8 }),
  ], 'Create account', async (v) => {
    await accounts.setup(token, v.name.trim(), v.password);
    return accounts.session();
  });
  history.replaceState(null, '', '/');
  return answer;
}

async function openLink(token, session) {
  if (session.link && sessionStorage.getItem('gallery.link') === token) return session;
  const opened = async (password) => {
    await accounts.openLink(token, password);
    sessionStorage.setItem('gallery.link', token);
    return accounts.session();
  };
  try {
    return await opened();
  } catch (e) {
    if (e.body?.error?.passwordRequired) {
      return ask('This link needs a password', 'Enter the password you were given with the link.', [
        field('Password', { name: 'password', type: 'password', autocomplete: 'current-password', required: true }),
      ], 'Open', (v) => opened(v.password));
    }
    linkGone(e);
    return new Promise(() => {});
  }
}

/// The page of a link that does not work (expired, revoked, unknown).
function linkGone(e) {
  const title = e.status === 410 ? 'This link no longer works' : e.status === 404 ? 'This link does not exist' : 'This link cannot be opened';
  show(el('div', { class: 'gate-message', role: 'alert' }, el('h1', { text: title }), el('p', { text: explain(e) }),
    el('p', { class: 'intro', text: 'Ask the person who shared it for a new link.' })));
}

/// Resolves the session to continue with ({user, link, setup}, plus `fresh` when it was
/// made here: the early requests of the gallery list went out without it).
export async function enter(early) {
  let session;
  try { session = await (early.session ? early.session.then(answer) : accounts.session()); } catch { session = await accounts.session(); }
  const link = location.pathname.match(/^\/s\/([^/]+)\/?$/);
  let entered = session;
  if (link) entered = await openLink(decodeURIComponent(link[1]), session);
  else if (location.pathname === '/setup') entered = session.user ? session : await setup(session);
  else if (!session.user && !session.link) {
    if (session.setup) {
      show(el('div', { class: 'gate-message' }, el('h1', { text: 'Welcome' }),
        el('p', { text: 'No account exists yet. Open the setup link the server printed in its log (…/setup#…) to create the first one.' })));
      return new Promise(() => {});
    }
    entered = await signIn();
  }
  leave();
  return { ...entered, fresh: entered !== session };
}
