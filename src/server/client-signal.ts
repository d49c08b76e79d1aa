/**
 * The GraphQL client's disconnect as a native AbortSignal, one per request. Yoga's
 * request.signal (whatwg-node) stops updating its own `aborted` once a native signal depends on
 * it, so it is read through a native copy; admission and the upstream session share this one
 * copy instead of each making their own (an AbortSignal.any per reader per request).
 */
const copies = new WeakMap<Request, AbortSignal>();

export function clientSignalOf(request: Request): AbortSignal {
  let signal = copies.get(request);
  if (!signal) copies.set(request, (signal = AbortSignal.any([request.signal])));
  return signal;
}
