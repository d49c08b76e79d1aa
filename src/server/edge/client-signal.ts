/**
 * The GraphQL client's disconnect as a native AbortSignal, one per request, shared by admission
 * and the upstream session. It follows Yoga's request.signal through one listener rather than
 * AbortSignal.any: whatwg-node's signal stops updating its own `aborted` once a native signal
 * depends on it, and a composite signal per request costs a native controller behind
 * whatwg-node's, weak references and a finalizer.
 */
const copies = new WeakMap<Request, AbortSignal>();

export function clientSignalOf(request: Request): AbortSignal {
  const made = copies.get(request);
  if (made) return made;
  const controller = new AbortController();
  copies.set(request, controller.signal);
  const source = request.signal;
  if (source.aborted) controller.abort(source.reason);
  else source.addEventListener('abort', () => controller.abort(source.reason), { once: true });
  return controller.signal;
}
