// Runs before the modules load. The server writes it into the page (PageDocument.swift: no round
// trip before the downloads start; the page's Content-Security-Policy allows it by its hash and
// no other inline script). The big downloads start now; app.js picks them up. The session is asked
// first thing: the gallery list and columns only help a signed-in page, and a share link's
// page (/s/<token>) or the setup page (/setup) opens its session before it asks for them.
{
  const early = (window.early = { wasm: fetch('/engine.wasm'), session: fetch('/api/session') });
  // The engine is compiled as it downloads and warmed while the modules still download: a few
  // small loads in each layout (engine_warm), so that the first gallery's load runs compiled,
  // tiered-up code (a fresh engine's first 100k load: ~30 ms, a warm one ~6; issue 15.2).
  // app.js takes the instance (Engine.load); on any failure it loads engine.wasm itself.
  early.engine = WebAssembly.instantiateStreaming(early.wasm, {})
    .then((made) => { made.instance.exports.engine_warm?.(2, 2000); return made; }, () => null);
  // Reads a binary columns answer into one buffer as it arrives. Resolves `{ body, whole, resume }`
  // once every column before the titles is in — `body` the buffer (the titles' bytes still
  // zeros), `whole` resolving to it once all of it is — or, for a body not of that form or cut
  // short, once it ended (api.decodeColumns then names what is wrong with it). The reading then
  // waits for `resume()`: the rest's copying (~15 ms at 1M) would fall between the grid's load and
  // its first frame.
  const readColumns = (response) => {
    const reader = response.body.getReader();
    let resume;
    const resumed = new Promise((go) => { resume = go; });
    return new Promise((handOver, fail) => {
      let chunks = [], got = 0, body = null, form, handed = false, finish, lose;
      const whole = new Promise((resolve, reject) => { finish = resolve; lose = reject; });
      whole.catch(() => {}); // said by whoever waits for it
      // Handed over whole (no `whole` to wait for) when it all came at once, as a small body does.
      const hand = () => {
        if (!handed) { handed = true; handOver({ body: body.buffer, whole: got < body.length ? whole : null, resume }); }
      };
      const joined = () => {
        const all = new Uint8Array(got);
        let at = 0;
        for (const c of chunks) { all.set(c, at); at += c.length; }
        return all;
      };
      // Once the header is in: the body's length and where its titles begin (the same walk as
      // decodeColumns), or null when it is not the binary form.
      const size = (head) => {
        if (head.length < 8) return undefined;
        const h = new DataView(head.buffer).getUint32(4, true);
        if (head.length < 8 + h) return undefined;
        let c = null;
        try { c = JSON.parse(new TextDecoder().decode(head.subarray(8, 8 + h))); } catch { /* not the binary form */ }
        const n = c?.count;
        if (String.fromCharCode(...head.subarray(0, 4)) !== 'GCB2' || !Number.isInteger(n) || n < 0) return null;
        let at = 8 + h;
        for (const bytes of [8, c.idBytes, 4, c.versionBytes, c.sizeBytes, c.sizeBytes, 1]) at = Math.ceil(at / bytes) * bytes + bytes * n;
        return Number.isFinite(at) && at + c.titleBytes >= head.length ? { length: at + c.titleBytes, gridEnd: at } : null;
      };
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (body) {
            if (got + value.length > body.length) throw new Error('the gallery\'s columns are longer than their header says');
            body.set(value, got);
            got += value.length;
          } else {
            chunks.push(value);
            got += value.length;
            if (form === undefined) form = size(joined());
            if (form) { body = new Uint8Array(form.length); body.set(joined()); chunks = null; }
          }
          if (body && got >= form.gridEnd && !handed) { hand(); if (got < body.length) await resumed; }
        }
        if (!body) body = joined();
        else if (got < body.length) {
          if (handed) throw new Error('the gallery\'s columns ended before their titles');
          body = body.slice(0, got);
        }
        hand();
        finish(body.buffer);
      })().catch((e) => { fail(e); lose(e); });
    });
  };

  if (location.pathname === '/' || location.pathname === '/index.html') {
    early.galleries = fetch('/api/galleries');
    const named = location.hash.match(/^#\/g\/(\d+)/);
    // The columns body is read as it arrives, not when app.js gets to it: until a response's
    // body is read, the browser stops taking it in once its pipe is full (~the first megabyte of
    // the inflated body), so the download and the inflating waited for the modules (issue 15.2).
    // It is read into one buffer of its final size, known from its header (docs/API.md, "Binary
    // form": the same walk as api.decodeColumns, which checks the length), and handed over as
    // soon as every column but the titles is in — the titles, last, are ~40 % of a big body
    // (issue 15.1): `{ body, whole, resume }` (readColumns, above). An answer that is not 2xx
    // stays a Response (app.js reads its error).
    if (named) {
      early.columns = { id: Number(named[1]), response: fetch(`/api/galleries/${named[1]}/columns?format=binary`)
        .then((r) => (r.ok ? readColumns(r) : r)) };
    }
  }
  for (const p of [early.wasm, early.engine, early.session, early.galleries, early.columns?.response]) p?.catch(() => {});
}
