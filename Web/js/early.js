// Runs before the modules load (a classic script: the Content-Security-Policy allows no
// inline script). The big downloads start now; app.js picks them up. The session is asked
// first thing: the gallery list and columns only help a signed-in page, and a share link's
// page (/s/<token>) or the setup page (/setup) opens its session before it asks for them.
{
  const early = (window.early = { wasm: fetch('/engine.wasm'), session: fetch('/api/session') });
  if (location.pathname === '/' || location.pathname === '/index.html') {
    early.galleries = fetch('/api/galleries');
    const named = location.hash.match(/^#\/g\/(\d+)/);
    if (named) early.columns = { id: Number(named[1]), response: fetch(`/api/galleries/${named[1]}/columns?format=binary`) };
  }
  for (const p of [early.wasm, early.session, early.galleries, early.columns?.response]) p?.catch(() => {});
}
