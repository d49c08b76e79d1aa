/**
 * Queries and mutations run as compiled code (graphql-jit): each document is compiled once per
 * operation name into a function that reads record keys as plain property accesses and calls only
 * the resolvers a field has, instead of walking the document per field and per item for every
 * request (the executor's per-field path, argument and promise bookkeeping was a fifth of the
 * gateway's own CPU on a 100-item list).
 *
 * What graphql-jit does not do stays on Yoga's executor: @defer and @stream (incremental
 * delivery), @live (the live-query store re-executes through it), subscriptions, and any document
 * graphql-jit refuses to compile. Not @envelop/graphql-jit: it caches one compiled operation per
 * document whatever the operation name, so a GraphiQL tab with several operations would run the
 * first one's code for all of them.
 *
 * Placed before every plugin that wraps execution (admission, live queries): they wrap this one.
 */
import { BREAK, getOperationAST, visit, type DocumentNode, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { makeExecute, type Plugin } from 'graphql-yoga';
import type { Logger } from '../logger.js';

/** Directives that ask for a stream of results, which only Yoga's executor (and the live-query store) deliver. */
const STREAMED = new Set(['defer', 'stream', 'live']);

function asksForStream(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Directive(node) {
      if (!STREAMED.has(node.name.value)) return undefined;
      found = true;
      return BREAK;
    },
  });
  return found;
}

/** null: this operation runs on Yoga's executor. */
type Compiled = CompiledQuery | null;

export function compiledExecutionPlugin(logger: Logger): Plugin {
  const byDocument = new WeakMap<DocumentNode, Map<string, Compiled>>();

  function compile(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): Compiled {
    const operation = getOperationAST(document, operationName);
    const named = operationName ?? operation?.name?.value;
    const standard = (reason: string): null => {
      logger.debug('operation runs on the standard executor', { operationName: named, reason });
      return null;
    };
    if (!operation) return standard('no single operation');
    if (operation.operation === 'subscription') return standard('subscription');
    if (asksForStream(document)) return standard('streamed');
    try {
      const compiled = compileQuery(schema, document, operationName);
      if (!isCompiledQuery(compiled)) return standard(compiled.errors?.map((e) => e.message).join('; ') ?? 'not compiled');
      logger.debug('operation compiled', { operationName: named, operation: operation.operation });
      return compiled;
    } catch (error) {
      logger.warn('operation could not be compiled; it runs on the standard executor', { operationName: named, error });
      return null;
    }
  }

  /** The operation's compiled code, made on its document's first execution. */
  function compiledOf(args: ExecutionArgs): Compiled {
    let byName = byDocument.get(args.document);
    if (!byName) byDocument.set(args.document, (byName = new Map()));
    const name = args.operationName ?? '';
    let compiled = byName.get(name);
    if (compiled === undefined) byName.set(name, (compiled = compile(args.schema, args.document, args.operationName ?? undefined)));
    return compiled;
  }

  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (!compiledOf(args)) return;
      const standard = executeFn;
      setExecuteFn(makeExecute((runArgs) => {
        const compiled = compiledOf(runArgs);
        if (!compiled) return standard(runArgs);
        const result = compiled.query(runArgs.rootValue, runArgs.contextValue, runArgs.variableValues ?? {});
        // Variables that do not fit the operation: nothing ran. Yoga's executor words the refusal
        // (codes, suggestions only where allowed) as every other request error.
        if (!(result instanceof Promise) && !('data' in result)) return standard(runArgs);
        return result;
      }));
    },
  };
}
