// API tokens for scripts (issue 10): named, read or write scope, shown once, listed with
// their last use, revocable. Scripts send them as `Authorization: Bearer <token>`.
import { accounts } from './accounts.js';
import { explain } from './auth.js';
import { el, field, formError, openDialog, when, copyBox, listError } from './ui.js';

export function openTokens() {
  const list = el('ul', { class: 'rows', 'aria-label': 'API tokens' });
  const created = el('div', { class: 'created-token' });
  const form = el('form', { class: 'token-form', novalidate: true },
    field('Name', { name: 'name', autocomplete: 'off', required: true, placeholder: 'backup script' }),
    el('label', { class: 'field' }, el('span', { text: 'Scope' }),
      el('select', { name: 'scope', 'aria-label': 'Scope' }, el('option', { value: 'read', text: 'Read only' }), el('option', { value: 'write', text: 'Read and write' }))),
    el('button', { type: 'submit', class: 'primary', text: 'Create token' }));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = Object.fromEntries(new FormData(form));
    formError(form, null);
    if (!v.name.trim()) { formError(form, 'Give the token a name, to know later what uses it.'); return; }
    try {
      const t = await accounts.createToken(v.name.trim(), v.scope);
      created.replaceChildren(el('p', { class: 'once', text: `Copy the token “${t.name}” now: it is shown only once.` }), copyBox(t.token, 'The new API token'));
      form.reset();
      refresh(list);
    } catch (error) {
      formError(form, explain(error));
    }
  });
  refresh(list);
  return openDialog('API tokens', [
    el('p', { class: 'intro', text: 'For scripts: send a token as “Authorization: Bearer <token>”.' }),
    form, created, el('h3', { text: 'Your tokens' }), list,
  ], { className: 'tokens-dialog' });
}

async function refresh(list) {
  let tokens;
  try { tokens = await accounts.tokens(); } catch (e) { list.replaceChildren(el('li', { class: 'form-error', text: explain(e) })); return; }
  if (!tokens.length) { list.replaceChildren(el('li', { class: 'empty', text: 'No tokens yet.' })); return; }
  list.replaceChildren(...tokens.map((t) => el('li', { class: 'row token-row', 'data-token': t.name },
    el('div', {}, el('strong', { text: t.name }), el('span', { class: 'muted', text: ` · ${t.scope === 'write' ? 'read and write' : 'read only'}` }),
      el('div', { class: 'muted small', text: `created ${when(t.createdAt)} · last used ${when(t.lastUsedAt, 'never')}` })),
    el('button', { type: 'button', class: 'danger', text: 'Revoke', onclick: async (e) => {
      e.target.disabled = true;
      try { await accounts.revokeToken(t.id); listError(list, null); } catch (err) { listError(list, explain(err)); }
      refresh(list);
    } }))));
}
