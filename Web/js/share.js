// The Share dialog (issue 10, owner only): share links — role, optional password, expiry
// (30 days unless chosen otherwise, never only when chosen), download and metadata — whose
// URL is shown once with a Copy button, listed with their last use and revocable; and the
// gallery's members, added by name with a role, changed and removed.
import { accounts } from './accounts.js';
import { explain } from './auth.js';
import { el, field, formError, openDialog, when, copyBox, listError } from './ui.js';

const ROLES = { viewer: 'Viewer — sees the grid and the slideshow', editor: 'Editor — arranges and adds', uploader: 'File drop — only adds pictures' };
const EXPIRY = [['7', '7 days'], ['30', '30 days'], ['90', '90 days'], ['365', '1 year'], ['never', 'Never']];

function select(name, options, value, label) {
  return el('select', { name, 'aria-label': label }, options.map(([v, text]) => el('option', { value: v, text, defaultSelected: v === value })));
}

/// The share dialog of `gallery` ({id, name}) for the signed-in `session`.
export function openShare({ id: gallery, name }, session) {
  const links = el('ul', { class: 'rows', 'aria-label': 'Share links' });
  const members = el('ul', { class: 'rows', 'aria-label': 'Members' });
  const created = el('div', { class: 'created-link' });
  const linkForm = newLinkForm(gallery, created, () => refreshLinks(gallery, links));
  const memberForm = newMemberForm(gallery, session, () => refreshMembers(gallery, members));
  const dialog = openDialog(`Share “${name}”`, [
    el('h3', { text: 'New share link' }), linkForm, created,
    el('h3', { text: 'Share links' }), links,
    el('h3', { text: 'Members' }), members, memberForm,
  ], { className: 'share-dialog' });
  refreshLinks(gallery, links);
  refreshMembers(gallery, members);
  return dialog;
}

function newLinkForm(gallery, created, refresh) {
  const metadata = el('input', { type: 'checkbox', name: 'showMetadata' });
  const download = el('input', { type: 'checkbox', name: 'allowDownload', disabled: true });
  // Originals carry their EXIF and GPS: a link that hides metadata cannot offer them.
  metadata.addEventListener('change', () => { download.disabled = !metadata.checked; if (!metadata.checked) download.checked = false; });
  const form = el('form', { class: 'share-form', novalidate: true },
    el('label', { class: 'field' }, el('span', { text: 'Role' }), select('role', Object.entries(ROLES), 'viewer', 'Role')),
    field('Password (optional)', { name: 'password', type: 'password', autocomplete: 'new-password' }),
    el('label', { class: 'field' }, el('span', { text: 'Expires after' }), select('expires', EXPIRY, '30', 'Expires after')),
    el('label', { class: 'check' }, metadata, ' Show metadata (EXIF, GPS)'),
    el('label', { class: 'check' }, download, ' Allow download of the originals'),
    el('button', { type: 'submit', class: 'primary', text: 'Create link' }));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = Object.fromEntries(new FormData(form));
    formError(form, null);
    try {
      const link = await accounts.createLink(gallery, {
        role: v.role, ...(v.password ? { password: v.password } : {}),
        expiresInDays: v.expires === 'never' ? null : Number(v.expires),
        allowDownload: download.checked, showMetadata: metadata.checked,
      });
      const url = new URL(link.url, location.origin).href;
      created.replaceChildren(el('p', { class: 'once', text: 'Copy this link now: it is shown only once.' }), copyBox(url, 'The new share link'));
      form.reset();
      download.disabled = true;
      refresh();
    } catch (error) {
      formError(form, explain(error));
    }
  });
  return form;
}

async function refreshLinks(gallery, list) {
  let links;
  try { links = await accounts.links(gallery); } catch (e) { list.replaceChildren(el('li', { class: 'form-error', text: explain(e) })); return; }
  const now = Date.now() / 1000;
  const active = links.filter((l) => !l.revoked).sort((a, b) => b.createdAt - a.createdAt);
  if (!active.length) { list.replaceChildren(el('li', { class: 'empty', text: 'No share links yet.' })); return; }
  list.replaceChildren(...active.map((l) => {
    const expired = l.expiresAt != null && l.expiresAt <= now;
    const facts = [
      l.hasPassword ? 'password' : 'no password',
      expired ? `expired ${when(l.expiresAt)}` : `expires ${when(l.expiresAt)}`,
      l.allowDownload ? 'download allowed' : 'no download',
      l.showMetadata ? 'metadata shown' : 'metadata hidden',
    ];
    return el('li', { class: 'row link-row', 'data-link': l.id },
      el('div', {}, el('strong', { text: ROLES[l.role]?.split(' — ')[0] ?? l.role }), el('span', { class: 'muted', text: ` · ${facts.join(' · ')}` }),
        el('div', { class: 'muted small', text: `created ${when(l.createdAt)} · last used ${when(l.lastUsedAt, 'never')}` })),
      el('button', { type: 'button', class: 'danger', text: 'Revoke', onclick: async (e) => {
        e.target.disabled = true;
        try { await accounts.revokeLink(gallery, l.id); listError(list, null); } catch (err) { listError(list, explain(err)); }
        refreshLinks(gallery, list);
      } }));
  }));
}

/// The account named `name`: an admin finds its id in the user list; anyone else names it
/// in the request and the server resolves it.
async function member(session, name) {
  if (!session.user?.admin) return name;
  const found = (await accounts.users()).find((u) => u.name.toLowerCase() === name.toLowerCase());
  if (!found) throw new Error(`No account is named “${name}”.`);
  return found.id;
}

function newMemberForm(gallery, session, refresh) {
  const form = el('form', { class: 'member-form', novalidate: true },
    field('Add a person by name', { name: 'name', autocomplete: 'off', autocapitalize: 'none', required: true }),
    el('label', { class: 'field' }, el('span', { text: 'as' }), select('role', [['viewer', 'Viewer'], ['editor', 'Editor']], 'viewer', 'Role of the new member')),
    el('button', { type: 'submit', text: 'Add' }));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = Object.fromEntries(new FormData(form));
    formError(form, null);
    if (!v.name.trim()) { formError(form, 'Enter the name of an account.'); return; }
    try {
      await accounts.setMember(gallery, await member(session, v.name.trim()), v.role);
      form.reset();
      refresh();
    } catch (error) {
      formError(form, explain(error));
    }
  });
  return form;
}

async function refreshMembers(gallery, list) {
  let members;
  try { members = await accounts.members(gallery); } catch (e) { list.replaceChildren(el('li', { class: 'form-error', text: explain(e) })); return; }
  if (!members.length) { list.replaceChildren(el('li', { class: 'empty', text: 'Only you.' })); return; }
  list.replaceChildren(...members.map((m) => el('li', { class: 'row member-row', 'data-member': m.user.name },
    el('strong', { text: m.user.name }),
    m.role === 'owner' ? el('span', { class: 'muted', text: 'owner' }) : [
      el('select', { 'aria-label': `Role of ${m.user.name}`, onchange: async (e) => {
        try { await accounts.setMember(gallery, m.user.id, e.target.value); listError(list, null); } catch (err) { listError(list, explain(err)); }
        refreshMembers(gallery, list);
      } }, [['viewer', 'Viewer'], ['editor', 'Editor']].map(([v, t]) => el('option', { value: v, text: t, defaultSelected: v === m.role }))),
      el('button', { type: 'button', class: 'danger', text: 'Remove', onclick: async () => {
        try { await accounts.removeMember(gallery, m.user.id); listError(list, null); } catch (err) { listError(list, explain(err)); }
        refreshMembers(gallery, list);
      } }),
    ])));
}
