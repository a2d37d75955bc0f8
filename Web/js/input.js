// Shared by the input modules: pointer kinds, modifier bits and data kinds as the engine's
// protocol codes, and points in the scroller's coordinates.
import { PointerKind, Modifier, DropData } from './protocol.js';

export const now = () => performance.now() / 1000;
export const pointerKind = (e) => PointerKind[e.pointerType] ?? PointerKind.mouse;
export const mods = (e) => (e.shiftKey ? Modifier.shift : 0) | (e.ctrlKey ? Modifier.control : 0) | (e.altKey ? Modifier.option : 0) | (e.metaKey ? Modifier.command : 0);
/// What an added item carries: files carry an image; URLs too, once they load.
export const FILE = DropData.file | DropData.image, URL_ITEM = DropData.url | DropData.image;
/// A page event's point in the scroller's viewport coordinates (what the engine takes).
export function pointIn(scroller, e) {
  const r = scroller.getBoundingClientRect();
  return [e.clientX - r.left, e.clientY - r.top];
}
