// Dropping in from outside (F18, F19, B6): files, folders, URLs (text/uri-list), an image
// dragged from another page (text/html with <img>), a pasted image. The destination and
// the proposal come from the engine; the page then hands the data to the server.

/// What a DataTransfer offers, without reading it (dragover cannot read it).
export function offeredKinds(dt) {
  const types = [...(dt?.types ?? [])];
  return {
    own: types.includes('application/x-drag-gallery+json'),
    files: types.includes('Files'),
    urls: types.includes('text/uri-list') || types.includes('text/html'),
  };
}

/// Reads dropped data: files (folders walked), URLs from text/uri-list, <img src> from text/html.
export async function readDrop(dt) {
  const files = [];
  const entries = [...(dt.items ?? [])].map((i) => (i.kind === 'file' ? i.webkitGetAsEntry?.() : null)).filter(Boolean);
  if (entries.length) {
    for (const entry of entries) await walk(entry, files);
  } else {
    for (const f of dt.files ?? []) files.push(f);
  }
  const urls = [];
  const list = dt.getData('text/uri-list');
  if (list) for (const line of list.split(/\r?\n/)) if (line && !line.startsWith('#')) urls.push(line.trim());
  if (!urls.length) {
    const html = dt.getData('text/html');
    if (html) {
      const doc = new DOMParser().parseFromString(html, 'text/html');
      for (const img of doc.querySelectorAll('img[src]')) urls.push(img.getAttribute('src'));
    }
  }
  if (!urls.length && !files.length) {
    const text = dt.getData('text/plain').trim();
    if (/^https?:\/\/\S+$/.test(text)) urls.push(text);
  }
  return { files: files.filter((f) => !f.type || f.type.startsWith('image/')), urls };
}

async function walk(entry, out) {
  if (entry.isFile) {
    out.push(await new Promise((res, rej) => entry.file(res, rej)));
  } else if (entry.isDirectory) {
    const reader = entry.createReader();
    for (;;) {
      const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
      if (!batch.length) break;
      for (const e of batch) await walk(e, out);
    }
  }
}
