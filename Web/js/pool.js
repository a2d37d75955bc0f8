// A recycled pool of cell elements. Cells are bound to an item (id + content version);
// images load off-DOM and paint only if the cell is still bound to the same item and
// version when they arrive, so a slow load never paints a recycled cell (F15). Decoded
// images stay in a small LRU so scrolling back never reloads them (F23).

const CACHE_LIMIT = 600;
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
    if (kind === 'cell') { el.dataset.bound = ''; el.token = null; }
    this.free[kind].push(el);
  }

  /// Shows `item` in `el` (a cell); a no-op when already showing this id and version.
  bind(el, item, progress) {
    const token = `${item.id}:${item.version}:${item.state}`;
    if (el.token === token) { this._progress(el, progress); return; }
    el.token = token;
    el.dataset.id = item.id;
    el.setAttribute('aria-label', item.title);
    el.querySelector('.title').textContent = item.title;
    el.querySelector('.spinner')?.remove();
    el.querySelector('.error')?.remove();
    el.querySelector('.progress')?.remove();
    const img = el.querySelector('img');
    img.classList.remove('loaded');
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
    const s = document.createElement('div');
    s.className = 'spinner';
    el.appendChild(s);
    const loader = new Image();
    loader.decoding = 'async';
    loader.onload = () => {
      remember(url, loader);
      if (el.token !== token) return; // recycled meanwhile: never paint the wrong cell
      img.src = url;
      img.classList.add('loaded');
      el.querySelector('.spinner')?.remove();
    };
    loader.onerror = () => {
      if (el.token !== token) return;
      el.querySelector('.spinner')?.remove();
      const err = document.createElement('div');
      err.className = 'error';
      err.innerHTML = '<span>Error 😟</span><small>image did not load</small>';
      el.appendChild(err);
    };
    loader.src = url;
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
