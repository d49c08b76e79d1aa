/**
 * What a live operation's viewer receives (src/server/live/live-query.ts runs the operation): the
 * first result in full, then JSON Patches or full results (LivePatcher), ending after a refusal.
 */
import type { ExecutionResult, GraphQLError } from 'graphql';
import { generateJSONPatch } from '@n1ru4l/graphql-live-query-patch-json-patch';

export interface LivePayload {
  data?: Record<string, unknown> | null;
  patch?: unknown[];
  revision?: number;
  errors?: readonly GraphQLError[];
  extensions?: Record<string, unknown>;
}

/**
 * Codes that end a live operation: the credential will not be accepted on the next run either;
 * OVERLOADED only ever comes with the first execution (a re-run is put off instead).
 */
const ENDING_CODES = new Set(['UNAUTHENTICATED', 'FORBIDDEN', 'OVERLOADED']);

/** What the stream needs of its live operation. */
export interface StreamedOperation {
  /** The viewer took a result. */
  delivered(): void;
  end(): void;
  /** Called once when it ends. */
  onEnd(listener: () => void): void;
}

const ends = (result: ExecutionResult) => result.errors?.some((error) => ENDING_CODES.has(error.extensions?.code as string)) ?? false;

/**
 * The payload for each result of a live operation: the first in full (revision 1), then a JSON
 * Patch against the previous result (revision n + 1) or, when the patch would be larger, the full
 * result again (revision 1, which patch-applying clients take as a restart); nothing when neither
 * data nor extensions changed. Without patches (x-live-query-patch: none): the full result each time.
 * It holds the last result only.
 */
export class LivePatcher {
  private previous: Record<string, unknown> | null = null;
  private previousExtensions = '';
  private revision = 0;

  constructor(private readonly patches: boolean) {}

  payloadOf(result: ExecutionResult): LivePayload | null {
    const extras = { ...(result.errors ? { errors: result.errors } : {}), ...(result.extensions ? { extensions: result.extensions } : {}) };
    const data = (result.data ?? null) as Record<string, unknown> | null;
    if (data === null) {
      this.previous = null;
      return { data: null, ...extras };
    }
    const extensionsText = JSON.stringify(result.extensions ?? null);
    const extensionsChanged = extensionsText !== this.previousExtensions;
    this.previousExtensions = extensionsText;
    const previous = this.previous;
    this.previous = data;
    const patch = previous === null ? null : generateJSONPatch(previous, data);
    const unchanged = patch !== null && !Array.isArray(patch);
    if (unchanged && !extensionsChanged && !result.errors) return null;
    if (patch === null || !this.patches) return this.full(data, extras);
    if (unchanged) return { patch: [], revision: ++this.revision, ...extras };
    // The full result when the patch would be larger than it.
    if (JSON.stringify(patch).length >= JSON.stringify(data).length) return this.full(data, extras);
    return { patch, revision: ++this.revision, ...extras };
  }

  private full(data: Record<string, unknown>, extras: Pick<LivePayload, 'errors' | 'extensions'>): LivePayload {
    this.revision = 1;
    return { data, ...extras, revision: 1 };
  }
}

/**
 * The payloads a client gets from the store's results (LivePatcher). Ends after a refusal, when
 * the client leaves (return()) or when the operation is ended (shutdown).
 */
export function liveStream(source: AsyncIterableIterator<ExecutionResult>, patches: boolean, operation: StreamedOperation): AsyncIterableIterator<LivePayload> {
  const patcher = new LivePatcher(patches);
  let finished = false;
  let endAfterNext = false;
  // source.return() settles a pending source.next() (done): nothing else needs to wait on the end.
  const finish = () => {
    if (finished) return;
    finished = true;
    void source.return?.();
    operation.end();
  };
  operation.onEnd(finish);
  const done = { done: true, value: undefined } as const;

  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next(): Promise<IteratorResult<LivePayload>> {
      try {
        for (;;) {
          if (finished || endAfterNext) {
            finish();
            return done;
          }
          const next = await source.next();
          operation.delivered();
          if (next.done || finished) {
            finish();
            return done;
          }
          const payload = patcher.payloadOf(next.value);
          if (payload === null) continue;
          if (ends(next.value)) endAfterNext = true;
          return { done: false, value: payload };
        }
      } catch (error) {
        finish();
        throw error;
      }
    },
    async return(): Promise<IteratorResult<LivePayload>> {
      finish();
      return done;
    },
  };
}
