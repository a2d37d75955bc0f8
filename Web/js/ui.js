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

/// The error line under a list of a dialog (a row's action failed): shown with `message`.
export function listError(list, message) {
  let line = list.nextElementSibling?.classList.contains('list-error') ? list.nextElementSibling : null;
  if (!line) {
    line = el('p', { class: 'form-error list-error', role: 'alert' });
    list.after(line);
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

let asked = 0;

/// A question in a dialog, instead of the browser's prompt() and confirm() (issue 13): a
/// titled sheet (a bottom sheet on a phone) with an optional message, an optional labelled
/// field, Cancel and a submit button. `validate(value)` answers a message (shown in the dialog,
/// the field marked invalid) or null; `run(value)` does the work while the dialog waits, and
/// what it throws is shown in the dialog, which stays open to try again. Esc or Cancel closes
/// it. Focus goes to the field (else the submit button) and back to `returnTo` (else the
/// element that had it) on close. Resolves true when `run` succeeded, false when cancelled.
///
///     await ask({ title: 'Rename gallery', label: 'Name', value: name, submit: 'Rename',
///                 validate: (v) => (v ? null : 'Enter a name.'), run: (v) => api.rename(id, v) });
export function ask({ title, message, label, value = '', type = 'text', placeholder, autocomplete = 'off',
  submit = 'OK', danger = false, validate = () => null, run = async () => {}, returnTo, className = '' }) {
  const n = ++asked, back = returnTo ?? document.activeElement;
  const input = label ? el('input', { id: `ask-input-${n}`, name: 'value', type, value, placeholder, autocomplete,
    autocapitalize: type === 'text' ? 'sentences' : 'none', spellcheck: type === 'text', enterkeyhint: 'done',
    'aria-describedby': `ask-error-${n}` }) : null;
  const error = el('p', { id: `ask-error-${n}`, class: 'form-error', role: 'alert', hidden: true });
  const ok = el('button', { type: 'submit', class: danger ? 'danger-fill' : 'primary', text: submit });
  const cancel = el('button', { type: 'button', class: 'cancel', text: 'Cancel' });
  const form = el('form', { class: 'ask-form', novalidate: true },
    message && el('p', { id: `ask-message-${n}`, class: 'ask-message', text: message }),
    input && el('label', { class: 'field', for: input.id }, el('span', { text: label }), input),
    error,
    el('div', { class: 'ask-actions' }, cancel, ok));
  const dialog = el('dialog', { class: `sheet ask ${className}`, 'aria-labelledby': `ask-title-${n}`,
    'aria-describedby': message ? `ask-message-${n}` : null },
    el('header', {}, el('h2', { id: `ask-title-${n}`, text: title })), form);
  const say = (text) => {
    error.textContent = text ?? '';
    error.hidden = !text;
    input?.setAttribute('aria-invalid', text ? 'true' : 'false');
  };
  let busy = false;
  return new Promise((resolve) => {
    let done = false;
    const finish = (answer) => {
      if (done) return;
      done = true;
      if (dialog.open) dialog.close();
      dialog.remove();
      if (back?.isConnected && back.checkVisibility?.() !== false) back.focus?.();
      resolve(answer);
    };
    cancel.addEventListener('click', () => finish(false));
    // Esc: the dialog's cancel (the work under way, if any, goes on without it).
    dialog.addEventListener('cancel', (e) => { e.preventDefault(); finish(false); });
    dialog.addEventListener('close', () => finish(false));
    input?.addEventListener('input', () => { if (!error.hidden) say(null); });
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (busy) return;
      const v = input ? input.value.trim() : true;
      const problem = validate(v);
      if (problem) { say(problem); input?.focus(); return; }
      say(null);
      busy = true;
      ok.disabled = true;
      dialog.setAttribute('aria-busy', 'true');
      try {
        await run(v);
        finish(true);
      } catch (err) {
        say(err?.message || String(err));
        (input ?? ok).focus();
      } finally {
        busy = false;
        ok.disabled = false;
        dialog.removeAttribute('aria-busy');
      }
    });
    document.body.append(dialog);
    dialog.showModal();
    if (input) { input.focus(); input.select(); } else ok.focus();
  });
}
