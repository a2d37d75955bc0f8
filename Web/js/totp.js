// Two-factor sign-in with an authenticator app (TOTP, issue 10): the secret is shown as
// text (and as the otpauth:// URI an app imports), a code confirms it, then ten recovery
// codes are shown once. Turning it on or off asks for the password.
import { accounts } from './accounts.js';
import { explain } from './auth.js';
import { el, field, formError, openDialog, copyBox } from './ui.js';

export function openTOTP(session, changed) {
  const body = el('div', { class: 'totp' });
  const dialog = openDialog('Two-factor sign-in', body, { className: 'totp-dialog' });
  if (session.user.totp) showEnabled(body, session, changed); else showStart(body, session, changed);
  return dialog;
}

function showStart(body, session, changed) {
  // Turning it on asks for the password too: a borrowed session must not lock the owner out.
  const form = el('form', { class: 'totp-start', novalidate: true },
    field('Password', { name: 'password', type: 'password', autocomplete: 'current-password', required: true }),
    el('button', { type: 'submit', class: 'primary', text: 'Turn on' }));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    formError(form, null);
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try { showSecret(body, await accounts.startTOTP(new FormData(form).get('password')), session, changed); } catch (err) { button.disabled = false; formError(form, explain(err)); }
  });
  body.replaceChildren(
    el('p', { text: 'Off. With it on, signing in also asks for a six-digit code from an authenticator app on your phone. Confirm with your password.' }),
    form);
}

function showSecret(body, { secret, uri }, session, changed) {
  const form = el('form', { class: 'totp-confirm', novalidate: true },
    field('Code from the app', { name: 'code', autocomplete: 'one-time-code', inputmode: 'numeric', required: true }),
    el('button', { type: 'submit', class: 'primary', text: 'Confirm' }));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    formError(form, null);
    try {
      const { recoveryCodes } = await accounts.confirmTOTP(new FormData(form).get('code').trim());
      session.user.totp = true;
      changed?.();
      body.replaceChildren(
        el('p', { text: 'Two-factor sign-in is on. Keep these recovery codes somewhere safe: each signs you in once without the app. They are shown only once.' }),
        el('ol', { class: 'recovery-codes' }, recoveryCodes.map((c) => el('li', { text: c }))),
        copyBox(recoveryCodes.join(' '), 'Recovery codes'));
    } catch (error) {
      formError(form, explain(error));
    }
  });
  body.replaceChildren(
    el('p', { text: 'Add this key to your authenticator app (type it in, or import the URI), then enter the code it shows.' }),
    el('p', { class: 'label', text: 'Key' }), copyBox(secret, 'TOTP key'),
    el('p', { class: 'label', text: 'URI' }), copyBox(uri, 'otpauth URI'),
    form);
}

function showEnabled(body, session, changed) {
  const form = el('form', { class: 'totp-disable', novalidate: true },
    field('Password', { name: 'password', type: 'password', autocomplete: 'current-password', required: true }),
    el('button', { type: 'submit', class: 'danger', text: 'Turn off' }));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    formError(form, null);
    try {
      await accounts.disableTOTP(new FormData(form).get('password'));
      session.user.totp = false;
      changed?.();
      showStart(body, session, changed);
    } catch (error) {
      formError(form, explain(error));
    }
  });
  body.replaceChildren(el('p', { text: 'On: signing in asks for a code from your authenticator app. To turn it off, confirm with your password.' }), form);
}
