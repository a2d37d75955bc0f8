// The admin's Users page (issue 10): every account, add one, reset a password, remove one.
import { accounts } from './accounts.js';
import { explain } from './auth.js';
import { el, field, formError, openDialog, when, ask } from './ui.js';

export function openUsers(session) {
  const list = el('ul', { class: 'rows', 'aria-label': 'Users' });
  const form = el('form', { class: 'user-form', novalidate: true },
    field('Name', { name: 'name', autocomplete: 'off', autocapitalize: 'none', required: true }),
    field('Password (8 to 72 bytes)', { name: 'password', type: 'password', autocomplete: 'new-password', required: true }),
    el('label', { class: 'check' }, el('input', { type: 'checkbox', name: 'admin' }), ' Admin'),
    el('button', { type: 'submit', class: 'primary', text: 'Add user' }));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = Object.fromEntries(new FormData(form));
    formError(form, null);
    try {
      await accounts.addUser(v.name.trim(), v.password, v.admin === 'on');
      form.reset();
      refresh(list, session);
    } catch (error) {
      formError(form, explain(error));
    }
  });
  refresh(list, session);
  return openDialog('Users', [el('h3', { text: 'Add a user' }), form, el('h3', { text: 'Accounts' }), list], { className: 'users-dialog' });
}

async function refresh(list, session) {
  let users;
  try { users = await accounts.users(); } catch (e) { list.replaceChildren(el('li', { class: 'form-error', text: explain(e) })); return; }
  list.replaceChildren(...users.map((u) => {
    const row = el('li', { class: 'row user-row', 'data-user': u.name },
      el('div', {}, el('strong', { text: u.name }), el('span', { class: 'muted', text: `${u.admin ? ' · admin' : ''}${u.id === session.user.id ? ' · you' : ''}` }),
        el('div', { class: 'muted small', text: `since ${when(u.createdAt)}` })),
      el('button', { type: 'button', text: 'Reset password', onclick: () => resetForm(row, u, u.id === session.user.id) }),
      u.id === session.user.id ? null : el('button', { type: 'button', class: 'danger', text: 'Remove', onclick: async (e) => {
        const removed = await ask({ title: `Remove the account “${u.name}”?`, message: 'Its galleries stay. Its sessions and tokens end now.',
          submit: 'Remove', danger: true, returnTo: e.target,
          run: () => accounts.removeUser(u.id).catch((err) => { throw new Error(explain(err)); }) });
        if (removed) refresh(list, session);
      } }));
    return row;
  }));
}

function resetForm(row, user, self) {
  row.querySelector('.reset-form')?.remove();
  const form = el('form', { class: 'reset-form', novalidate: true },
    self && field('Your current password', { name: 'current', type: 'password', autocomplete: 'current-password', required: true }),
    field(`New password for ${user.name}`, { name: 'password', type: 'password', autocomplete: 'new-password', required: true }),
    el('button', { type: 'submit', class: 'primary', text: 'Set password' }));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    formError(form, null);
    try {
      const v = Object.fromEntries(new FormData(form));
      await accounts.setPassword(user.id, v.password, v.current);
      form.replaceChildren(el('p', { class: 'done', role: 'status', text: `The password of ${user.name} was changed.` }));
    } catch (error) {
      formError(form, explain(error));
    }
  });
  row.append(form);
  form.querySelector('input').focus();
}
