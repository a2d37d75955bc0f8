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
  if (location.pathname === '/' || location.pathname === '/index.html') {
    early.galleries = fetch('/api/galleries');
    const named = location.hash.match(/^#\/g\/(\d+)/);
    // The columns body is read as it arrives, not when app.js gets to it: until a response's
    // body is read, the browser stops taking it in once its pipe is full (~the first megabyte of
    // the inflated body), so the download and the inflating waited for the modules (issue 15.2).
    // An answer that is not 2xx stays a Response (app.js reads its error).
    if (named) {
      early.columns = { id: Number(named[1]), response: fetch(`/api/galleries/${named[1]}/columns?format=binary`)
        .then((r) => (r.ok ? r.arrayBuffer() : r)) };
    }
  }
  for (const p of [early.wasm, early.engine, early.session, early.galleries, early.columns?.response]) p?.catch(() => {});
}
