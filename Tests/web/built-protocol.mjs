// Page modules import './protocol.js', which scripts/build-wasm.sh generates beside
// engine.wasm (.build-wasm/protocol.js) and the server serves at /js/protocol.js. Under node,
// this hook resolves that import to the built file. Import it before the page's modules, and
// import those dynamically (`await import(...)`) so the hook is in place when they resolve:
//
//   import '../web/built-protocol.mjs';
//   const { Engine } = await import('../../Web/js/engine.js');
import { register } from 'node:module';
import { existsSync } from 'node:fs';

const built = new URL('../../.build-wasm/protocol.js', import.meta.url);
if (!existsSync(built)) throw new Error(`${built.pathname} is missing: run scripts/build-wasm.sh first`);
const page = new URL('../../Web/js/', import.meta.url).href;

const hook = `
export async function resolve(specifier, context, next) {
  if (specifier === './protocol.js' && context.parentURL?.startsWith(${JSON.stringify(page)})) {
    return { url: ${JSON.stringify(built.href)}, shortCircuit: true };
  }
  if (specifier.endsWith('/Web/js/protocol.js') || specifier === ${JSON.stringify(page + 'protocol.js')}) {
    return { url: ${JSON.stringify(built.href)}, shortCircuit: true };
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
