// Changing one's own password (issue 10): the current one first, so a borrowed session cannot
// take over the account. The server ends the account's other sessions and renews this one.
import { accounts } from './accounts.js';
import { explain } from './auth.js';
import { el, field, formError, openDialog } from './ui.js';

export function openPassword(session, toast) {
  const form = el('form', { class: 'password-form', novalidate: true },
    el('input', { type: 'text', name: 'username', autocomplete: 'username', value: session.user.name, hidden: true }),
    field('Current password', { name: 'current', type: 'password', autocomplete: 'current-password', required: true }),
    field('New password', { name: 'password', type: 'password', autocomplete: 'new-password', required: true, minlength: 8 }),
    field('New password again', { name: 'again', type: 'password', autocomplete: 'new-password', required: true }),
    el('p', { class: 'muted small', text: 'At least 8 characters. Your other devices will be signed out.' }),
    el('button', { type: 'submit', class: 'primary', text: 'Change password' }));
  let dialog = null;
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = Object.fromEntries(new FormData(form));
    formError(form, null);
    if (!v.current) { formError(form, 'Enter your current password.'); return; }
    if (v.password.length < 8) { formError(form, 'The new password needs at least 8 characters.'); return; }
    if (v.password !== v.again) { formError(form, 'The two new passwords differ.'); return; }
    try {
      await accounts.setPassword(session.user.id, v.password, v.current);
      dialog.close();
      toast('Password changed. Your other devices are signed out.');
    } catch (error) {
      formError(form, explain(error));
    }
  });
  dialog = openDialog('Change password', form, { className: 'password-dialog' });
  return dialog;
}
