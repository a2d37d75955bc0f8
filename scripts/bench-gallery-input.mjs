// controllerCreate's input for a made-up gallery of `n` items in `sections` sections (ids from 1,
// versions 0, aspects from a fixed pseudo-random stream), in a waterfall or a grid at 1200 × 800:
// what scripts/bench-load.mjs and scripts/bench-first-load.mjs load.
import '../Tests/web/built-protocol.mjs';
const { LayoutKind } = await import('../Web/js/protocol.js');

export function galleryInput(n, sections, kind) {
  const per = n / sections, out = new Float64Array(1 + 2 * sections + 3 * n + 18);
  let k = 0, seed = 7;
  out[k++] = sections;
  for (let s = 0, id = 1; s < sections; s++) { out[k++] = s + 1; out[k++] = per; for (let i = 0; i < per; i++) out[k++] = id++; k += per; }
  for (let i = 0; i < n; i++) out[k++] = 0.5 + ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 1.5;
  out.set([...(kind === 'grid' ? [LayoutKind.grid, 4, 1] : [LayoutKind.waterfall, 4, 0]), 1200, 44, 8, 8, 8, 8, 6, 6, 0, 0.5, 1200, 800, 0, 1, 0], k);
  return out;
}
