// Small DOM helpers for the forms and dialogs of accounts and sharing (issue 10): elements
// built from data (never HTML strings, so nothing a user typed becomes markup), modal
// dialogs, and an error line per form.

/// An element: el('button', { class: 'primary', onclick: f }, 'Save'). Attributes named on…
/// become listeners; `class`, `text` and boolean properties are set directly.
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props ?? {})) {
    if (v == null || v === false) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k in node && typeof v !== 'string') node[k] = v;
    else node.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) if (c != null && c !== false) node.append(c instanceof Node ? c : String(c));
  return node;
}

/// A labelled input: field('Name', { name: 'name', autocomplete: 'username' }).
export function field(label, props) {
  return el('label', { class: 'field' }, el('span', { text: label }), el('input', props));
}

/// The error line of a form: shown with `message`, hidden with null.
export function formError(form, message) {
  let line = form.querySelector('.form-error');
  if (!line) {
    line = el('p', { class: 'form-error', role: 'alert' });
    form.append(line);
  }
  line.textContent = message ?? '';
  line.hidden = !message;
}

/// A modal dialog with a title and a close button; `body` is a node or a list of nodes.
/// Resolves nothing: the caller keeps the element (dialog.close() closes, and removes it).
export function openDialog(title, body, { className = '' } = {}) {
  const dialog = el('dialog', { class: `panel ${className}`, 'aria-label': title },
    el('header', {}, el('h2', { text: title }),
      el('button', { class: 'close', type: 'button', 'aria-label': 'Close', title: 'Close', text: '×', onclick: () => dialog.close() })),
    el('div', { class: 'panel-body' }, body));
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}

/// A date for lists: "2026-11-24 12:30", or `never` for null/undefined.
export function when(unixSeconds, never = 'never') {
  if (unixSeconds == null) return never;
  const d = new Date(unixSeconds * 1000);
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/// A read-only text with a Copy button (a link or a token shown once).
export function copyBox(value, label) {
  const input = el('input', { class: 'copy-value', readOnly: true, value, 'aria-label': label });
  const button = el('button', { type: 'button', text: 'Copy', onclick: async () => {
    input.select();
    try { await navigator.clipboard.writeText(value); } catch { document.execCommand?.('copy'); }
    button.textContent = 'Copied';
  } });
  return el('div', { class: 'copy-box' }, input, button);
}
