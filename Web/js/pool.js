// A recycled pool of cell elements. Cells are bound to an item (id + content version);
// images load off-DOM and paint only if the cell is still bound to the same item and
// version when they arrive, so a slow load never paints a recycled cell (F15). Decoded
// images stay in a small LRU so scrolling back never reloads them (F23).
//
// While the grid moves fast (a fling), a cell's image is not asked for at once: the view says
// `later`, and the loads of the cells still bound start when it slows down or stops
// (`loadDeferred`). A load that takes a while shows a spinner after SPINNER_DELAY and its image
// fades in; a prompt one just appears. Without that, a fling at 100k items asked for ~5 images a
// frame that were gone before they arrived, and each gave its cell a spinning animation and a
// fade: compositor layers made and dropped every frame (issue 15, BENCHMARKS.md).
// A cell waiting for its image has `data-loading` (deferred or under way).

const CACHE_LIMIT = 600;
const SPINNER_DELAY = 300; // ms
const imageCache = new Map(); // url → HTMLImageElement (decoded), in LRU order

function cached(url) {
  const img = imageCache.get(url);
  if (img) { imageCache.delete(url); imageCache.set(url, img); }
  return img;
}

function remember(url, img) {
  imageCache.set(url, img);
  if (imageCache.size > CACHE_LIMIT) imageCache.delete(imageCache.keys().next().value);
}

export class CellPool {
  constructor(container) {
    this.container = container;
    this.free = { cell: [], header: [], gap: [] };
    this.created = 0;
    this.deferred = new Set(); // cells whose image load waits for the grid to slow down
  }

  take(kind) {
    const el = this.free[kind].pop();
    if (el) { el.hidden = false; return el; }
    this.created++;
    const node = document.createElement('div');
    node.className = kind;
    if (kind === 'cell') {
      node.setAttribute('role', 'img'); // named by its title (aria-label); the grid is an application with its own keys
      node.draggable = true;
      node.innerHTML = '<img alt="" draggable="false" decoding="async"><div class="title"></div>';
    } else if (kind === 'header') {
      node.setAttribute('role', 'group'); // a section's title and its menu
      node.innerHTML = '<span class="header-title"></span><span class="header-grip" aria-hidden="true" title="Drag to reorder the sections"></span>'
        + '<button class="header-menu" aria-haspopup="menu" aria-expanded="false" aria-label="Section options">⋯</button>';
    } else if (kind === 'gap') {
      node.textContent = 'Drop here';
    }
    this.container.appendChild(node);
    return node;
  }

  give(kind, el) {
    el.hidden = true;
    el.className = kind;
    el.style.opacity = '';
    el.style.zIndex = '';
    if (kind === 'cell') { el.dataset.bound = ''; el.token = null; this._settle(el); }
    this.free[kind].push(el);
  }

  /// Writes `item`'s title into the cell `el` shows it in, if it is not there yet.
  retitle(el, item) {
    if (el.getAttribute('aria-label') === item.title) return;
    el.setAttribute('aria-label', item.title);
    el.querySelector('.title').textContent = item.title;
  }

  /// Shows `item` in `el` (a cell); a no-op when already showing this id and version. `later`:
  /// the grid moves fast, an image not in the cache waits for `loadDeferred`.
  bind(el, item, progress, later = false) {
    const token = `${item.id}:${item.version}:${item.state}`;
    if (el.token === token) { this._progress(el, progress); return; }
    el.token = token;
    this._settle(el);
    el.dataset.id = item.id;
    el.setAttribute('aria-label', item.title);
    el.querySelector('.title').textContent = item.title;
    el.querySelector('.spinner')?.remove();
    el.querySelector('.error')?.remove();
    el.querySelector('.progress')?.remove();
    const img = el.querySelector('img');
    img.classList.remove('loaded', 'fade');
    img.removeAttribute('src');
    if (item.state === 'failed') {
      const err = document.createElement('div');
      err.className = 'error';
      err.innerHTML = '<span>Error 😟</span><small></small>';
      err.querySelector('small').textContent = item.reason ?? '';
      el.appendChild(err);
      return;
    }
    if (item.state === 'pending' || !item.thumbnails) {
      const s = document.createElement('div');
      s.className = 'spinner';
      el.appendChild(s);
      this._progress(el, progress);
      return;
    }
    const url = item.thumbnails.grid;
    const hit = cached(url);
    if (hit) { img.src = url; img.classList.add('loaded'); return; }
    el.dataset.loading = '';
    if (later) { el.deferredURL = url; this.deferred.add(el); return; }
    this._load(el, url, token);
  }

  /// Starts the image loads the cells still bound have waited for (the grid slowed down).
  loadDeferred() {
    for (const el of this.deferred) {
      const url = el.deferredURL;
      el.deferredURL = null;
      if (url && el.token) this._load(el, url, el.token);
    }
    this.deferred.clear();
  }

  _load(el, url, token) {
    const img = el.querySelector('img');
    // A spinner only when the image is slow to come: a prompt one appears without one.
    el.spinTimer = setTimeout(() => {
      el.spinTimer = 0;
      if (el.token !== token) return;
      const s = document.createElement('div');
      s.className = 'spinner';
      el.appendChild(s);
    }, SPINNER_DELAY);
    const loader = new Image();
    loader.decoding = 'async';
    loader.onload = () => {
      remember(url, loader);
      if (el.token !== token) return; // recycled meanwhile: never paint the wrong cell
      const slow = !el.spinTimer;
      this._settle(el);
      img.src = url;
      img.classList.add('loaded');
      if (slow) img.classList.add('fade'); // after a spinner, the image fades in
      el.querySelector('.spinner')?.remove();
    };
    loader.onerror = () => {
      if (el.token !== token) return;
      this._settle(el);
      el.querySelector('.spinner')?.remove();
      const err = document.createElement('div');
      err.className = 'error';
      err.innerHTML = '<span>Error 😟</span><small>image did not load</small>';
      el.appendChild(err);
    };
    loader.src = url;
  }

  /// Forgets a cell's deferred or running image load (it was recycled, rebound or its image came).
  _settle(el) {
    if (el.spinTimer) { clearTimeout(el.spinTimer); el.spinTimer = 0; }
    if (el.deferredURL) { el.deferredURL = null; this.deferred.delete(el); }
    if (el.dataset.loading != null) delete el.dataset.loading;
  }

  _progress(el, progress) {
    let bar = el.querySelector('.progress');
    if (progress == null) { bar?.remove(); return; }
    if (!bar) {
      bar = document.createElement('div');
      bar.className = 'progress';
      bar.innerHTML = '<i></i>';
      el.appendChild(bar);
    }
    bar.firstChild.style.width = `${Math.round(progress * 100)}%`;
  }
}
