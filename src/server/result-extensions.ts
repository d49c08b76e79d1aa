/**
 * Extensions that describe the whole operation go on its final result: the single result, or
 * for @defer/@stream the last payload (hasNext: false).
 */
import type { Plugin } from 'graphql-yoga';

import type { GatewayContext } from '../context.js';

type OnExecuteHookResult = Exclude<Awaited<ReturnType<NonNullable<Plugin<GatewayContext>['onExecute']>>>, void>;

type Extensions = Record<string, unknown> | undefined;

export function onFinalResult(extend: (extensions: Extensions) => Extensions): OnExecuteHookResult {
  const withExtensions = (result: { extensions?: Record<string, unknown> }) => {
    const extensions = extend(result.extensions);
    return (extensions === result.extensions ? result : { ...result, extensions }) as never;
  };
  return {
    onExecuteDone({ result, setResult }) {
      if (!(Symbol.asyncIterator in Object(result))) return setResult(withExtensions(result as object));
      return {
        onNext({ result: payload, setResult: setPayload }) {
          if ((payload as { hasNext?: boolean }).hasNext === false) setPayload(withExtensions(payload as object));
        },
      };
    },
  };
}
