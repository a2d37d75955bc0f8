// The server's JSON API (docs/API.md). Every call answers parsed JSON or throws an
// ApiError carrying the server's message and status.

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? body?.message ?? body?.error ?? `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

async function request(method, path, body, headers = {}) {
  const init = { method, headers: { ...headers } };
  if (body !== undefined) {
    if (body instanceof FormData || body instanceof Blob) init.body = body;
    else { init.body = JSON.stringify(body); init.headers['content-type'] = 'application/json'; }
  }
  return answer(await fetch(path, init));
}

/// A response's JSON, or an ApiError carrying the server's message and status.
export async function answer(res) {
  const text = await res.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = { error: text }; }
  if (!res.ok) {
    // Access may have ended (a revoked link or session): the page's Access module decides.
    if (res.status === 401 || res.status === 403 || res.status === 410) {
      globalThis.dispatchEvent?.(new CustomEvent('gallery:denied', { detail: { status: res.status, url: res.url } }));
    }
    throw new ApiError(res.status, json);
  }
  return json;
}

/// The columns of a gallery in their binary form (GET …/columns?format=binary, docs/API.md):
/// each column a typed array over the body — nothing parsed but the small JSON header; titles
/// decoded one by one when asked for (titleAt). The same fields as the JSON form otherwise.
/// With `whole` (early.js readColumns: the body handed over before its titles arrived) the titles
/// read as '' until it resolves; `c.whole` then resolves to `c` with them in.
export function decodeColumns(buffer, whole = null) {
  const bytes = new Uint8Array(buffer);
  if (bytes.length < 8 || String.fromCharCode(...bytes.subarray(0, 4)) !== 'GCB2') throw new ApiError(0, { error: 'not a binary columns body' });
  const h = new DataView(buffer).getUint32(4, true);
  const c = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + h)));
  const n = c.count;
  // Each column starts at a multiple of its element's size; ids, versions and sizes come in the
  // narrowest width that holds them (docs/API.md, "Binary form").
  let at = 8 + h;
  const take = (Type) => {
    at = Math.ceil(at / Type.BYTES_PER_ELEMENT) * Type.BYTES_PER_ELEMENT;
    const a = new Type(buffer, at, n); at += a.byteLength; return a;
  };
  const narrow = (bytes) => (bytes === 2 ? Uint16Array : Uint32Array);
  c.aspect = take(Float64Array);
  c.id = take(c.idBytes === 4 ? Uint32Array : Float64Array);
  const ends = take(Uint32Array);
  c.contentVersion = take(narrow(c.versionBytes));
  c.width = take(narrow(c.sizeBytes));
  c.height = take(narrow(c.sizeBytes));
  const states = take(Uint8Array);
  const titles = bytes.subarray(at, at + c.titleBytes);
  if (at + c.titleBytes !== bytes.length) throw new ApiError(0, { error: 'a binary columns body of the wrong length' });
  const text = new TextDecoder();
  c.titlesIn = !whole;
  c.titleAt = (k) => (c.titlesIn ? text.decode(titles.subarray(k ? ends[k - 1] : 0, ends[k])) : '');
  c.stateAt = (k) => states[k];
  if (whole) c.whole = whole.then(() => { c.titlesIn = true; return c; });
  return c;
}

/// A binary columns answer decoded, or the ApiError of a refused one.
export async function columnsAnswer(res) {
  if (!res.ok) return answer(res);
  return decodeColumns(await res.arrayBuffer());
}

export const columnsURL = (id) => `/api/galleries/${id}/columns?format=binary`;

export const api = {
  galleries: () => request('GET', '/api/galleries'),
  createGallery: (name) => request('POST', '/api/galleries', { name }),
  renameGallery: (id, name) => request('PATCH', `/api/galleries/${id}`, { name }),
  duplicateGallery: (id, name) => request('POST', `/api/galleries/${id}/duplicate`, { name }),
  deleteGallery: (id) => request('DELETE', `/api/galleries/${id}`),
  snapshot: (id) => request('GET', `/api/galleries/${id}`),
  columns: async (id) => columnsAnswer(await fetch(columnsURL(id))),
  changesSince: (id, version) => request('GET', `/api/galleries/${id}/changes?since=${version}`),
  batch: (id, baseVersion, operations) => request('POST', `/api/galleries/${id}/batch`, { baseVersion, operations }),
  /// A section's item ids sorted `by` 'captured' or 'name' (issue 12); nothing changes on the server.
  sectionOrder: (id, section, by) => request('GET', `/api/galleries/${id}/sections/${section}/order?by=${by}`),
  trash: (id) => request('GET', `/api/galleries/${id}/trash`),
  dropURL: (id, url, to, title) => request('POST', `/api/galleries/${id}/urls`, { url, to, ...(title ? { title } : {}) }),
  /// Uploads files with progress: onProgress(fraction) as bytes go out. Resolves the answer.
  upload(id, files, to, onProgress) {
    return new Promise((resolve, reject) => {
      const form = new FormData();
      for (const f of files) form.append('files', f, f.name || 'pasted.png');
      const query = new URLSearchParams(Object.entries(to ?? {}).map(([k, v]) => [k, String(v)]));
      const xhr = new XMLHttpRequest();
      xhr.open('POST', `/api/galleries/${id}/uploads?${query}`);
      xhr.upload.onprogress = (e) => { if (e.lengthComputable) onProgress?.(e.loaded / e.total); };
      xhr.onload = () => {
        let json = null;
        try { json = JSON.parse(xhr.responseText); } catch { json = { error: xhr.responseText }; }
        if (xhr.status >= 200 && xhr.status < 300) resolve(json); else reject(new ApiError(xhr.status, json));
      };
      xhr.onerror = () => reject(new ApiError(0, { error: 'network error' }));
      xhr.send(form);
    });
  },
  events: (id, since) => new EventSource(`/api/galleries/${id}/events?since=${since}`),
};
