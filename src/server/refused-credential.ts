/**
 * A caller whose credential the inventory refused (UNAUTHENTICATED, FORBIDDEN) gets no data at
 * all, not a partial answer: around the refused field there can be fields that needed no upstream
 * call, or (for @defer) payloads read before the refusal, and a refused credential reads nothing.
 * The errors stay, so the client learns why. For a streamed result this holds for every payload
 * from the one that carries the refusal on.
 */
import type { ExecutionResult, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';
import { ACCESS_REFUSAL_REASONS } from '../identity/access.js';

const REFUSED = new Set(['UNAUTHENTICATED', 'FORBIDDEN']);

/** The upstream refused the credential: not the gateway's own refusal of one field (src/identity/access.ts), after which the rest of the answer stands. */
const refuses = (errors: readonly GraphQLError[] | undefined): boolean =>
  errors?.some((error) => REFUSED.has(error.extensions?.code as string) && !ACCESS_REFUSAL_REASONS.has(error.extensions?.reason as string)) ?? false;

interface Incremental { data?: unknown; items?: unknown; errors?: readonly GraphQLError[] }
type Payload = ExecutionResult & { incremental?: Incremental[] };

/** The payload without data when it carries a refusal (or follows one); the same object otherwise. */
function withoutData(payload: Payload, refusedBefore: boolean): { payload: Payload; refused: boolean } {
  const refused = refusedBefore || refuses(payload.errors) || (payload.incremental?.some((part) => refuses(part.errors)) ?? false);
  if (!refused) return { payload, refused };
  const incremental = payload.incremental?.map(({ data: _data, items: _items, ...rest }) => rest);
  return { payload: { ...payload, ...('data' in payload ? { data: null } : {}), ...(incremental ? { incremental } : {}) }, refused };
}

export function refusedCredentialPlugin(): Plugin<GatewayContext> {
  return {
    onExecute() {
      return {
        onExecuteDone({ result, setResult }) {
          if (!(Symbol.asyncIterator in Object(result))) {
            const { payload, refused } = withoutData(result as Payload, false);
            if (refused) setResult(payload as never);
            return undefined;
          }
          let refusedSoFar = false;
          return {
            onNext({ result: next, setResult: setNext }) {
              const { payload, refused } = withoutData(next as Payload, refusedSoFar);
              refusedSoFar = refused;
              if (payload !== next) setNext(payload as never);
            },
          };
        },
      };
    },
  };
}
