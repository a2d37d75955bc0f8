// The "file drop" page of an uploader link (issue 10): the visitor adds pictures to the
// gallery and sees only what this link added (GET /api/links/uploads), with each picture's
// state; no grid, no live stream. Added pictures reach the owner's open window live.
import { api } from './api.js';
import { accounts } from './accounts.js';
import { explain } from './auth.js';
import { el } from './ui.js';

export async function startFileDrop(session) {
  const link = session.link;
  document.body.dataset.mode = 'filedrop';
  const root = document.getElementById('filedrop');
  const list = el('ul', { class: 'drop-list', 'aria-label': 'Pictures you added' });
  const status = el('p', { class: 'drop-status', role: 'status' });
  const input = el('input', { type: 'file', accept: 'image/*', multiple: true, hidden: true, id: 'filedrop-input' });
  const zone = el('label', { class: 'drop-zone', for: 'filedrop-input', tabindex: '0' },
    el('strong', { text: 'Drop pictures here' }), el('span', { text: 'or click to choose files' }));
  root.replaceChildren(el('div', { class: 'filedrop-card' },
    el('h1', { text: `Add pictures to “${link.galleryName}”` }),
    el('p', { class: 'intro', text: 'The owner of this gallery sees what you add. You see only the pictures added with this link.' }),
    zone, input, status, el('h2', { text: 'Added with this link' }), list));
  root.hidden = false;

  let gone = false;
  const refresh = async () => {
    try {
      const items = await accounts.linkUploads();
      list.replaceChildren(...(items.length ? items.map(row) : [el('li', { class: 'empty', text: 'Nothing yet.' })]));
      // Pictures still being processed: look again shortly.
      clearTimeout(refresh.timer);
      if (items.some((i) => i.state === 'pending')) refresh.timer = setTimeout(refresh, 1000);
    } catch (e) { ended(e); }
  };
  const ended = (e) => {
    if (gone || ![401, 403, 410].includes(e.status)) { status.textContent = explain(e); return; }
    gone = true;
    input.disabled = true;
    zone.inert = true;
    root.querySelector('.filedrop-card').classList.add('ended');
    status.textContent = '';
    document.getElementById('notice').replaceChildren(el('div', { class: 'notice-card', role: 'alert' },
      el('h1', { text: 'Access ended' }), el('p', { class: 'notice-message', text: 'This share link no longer works.' }),
      el('p', { text: 'Ask the person who shared it for a new link.' })));
    document.getElementById('notice').hidden = false;
  };
  const add = async (files) => {
    files = files.filter((f) => f.type.startsWith('image/'));
    if (!files.length) { status.textContent = 'Only image files can be added.'; return; }
    status.textContent = `Adding ${files.length} picture${files.length > 1 ? 's' : ''}…`;
    try {
      await api.upload(link.gallery, files, {}, (f) => { status.textContent = `Uploading… ${Math.round(f * 100)} %`; });
      status.textContent = `Added ${files.length} picture${files.length > 1 ? 's' : ''}.`;
    } catch (e) {
      ended(e);
    }
    refresh();
  };
  input.addEventListener('change', () => { add([...input.files]); input.value = ''; });
  zone.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); input.click(); } });
  for (const type of ['dragenter', 'dragover']) root.addEventListener(type, (e) => { e.preventDefault(); zone.classList.add('hovered'); });
  root.addEventListener('dragleave', (e) => { if (!e.relatedTarget || !root.contains(e.relatedTarget)) zone.classList.remove('hovered'); });
  root.addEventListener('drop', (e) => { e.preventDefault(); zone.classList.remove('hovered'); add([...e.dataTransfer.files]); });
  await refresh();
  document.body.dataset.ready = '1';
}

function row(item) {
  const state = item.state === 'ready' ? 'added' : item.state === 'failed' ? `could not be added: ${item.reason ?? 'unreadable image'}` : 'processing…';
  return el('li', { class: `drop-item ${item.state}`, 'data-title': item.title },
    item.thumbnails && item.state === 'ready' ? el('img', { src: item.thumbnails.grid, alt: '' }) : el('span', { class: 'thumb-placeholder' }),
    el('span', { class: 'drop-title', text: item.title }), el('span', { class: 'muted', text: state }));
}
