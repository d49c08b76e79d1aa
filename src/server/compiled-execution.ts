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
 * Memory: the compiled code is kept with its document in the document cache (document-cache.ts),
 * which counts it against DOCUMENT_CACHE_MAX_BYTES and lets it go with the document. Code that would
 * make a document weigh more than the cache allows one entry is not kept: that operation runs on
 * Yoga's executor. V8 itself would keep every compiled operation's source and bytecode in its
 * compilation cache long after the code is gone: main.ts turns that cache off.
 *
 * Placed before every plugin that wraps execution (admission, live queries): they wrap this one.
 */
import { BREAK, getOperationAST, visit, type DocumentNode, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery, type CompilerOptions } from 'graphql-jit';
import { makeExecute, type Plugin } from 'graphql-yoga';
import type { Logger } from '../logger.js';
import { COMPILED_BYTES_PER_CHAR, type DocumentCache } from './document-cache.js';

/** graphql-jit's (undocumented) debug option hands over the generated source: its length is what the code weighs. */
const SOURCE_OF_DEBUG = '__DO_NOT_USE_THIS_OR_YOU_WILL_BE_FIRED_compilation';
/** When the generated source is not handed over (another graphql-jit): what a wide operation's code weighs. */
const UNKNOWN_CODE_CHARS = 250_000;

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

export function compiledExecutionPlugin(logger: Logger, documents: DocumentCache): Plugin {
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
    // A document the cache does not hold would be parsed, and its code made, again for each request.
    if (!documents.holds(document)) return standard('document not cached');
    try {
      const compiled = compileQuery(schema, document, operationName, { debug: true } as Partial<CompilerOptions>);
      if (!isCompiledQuery(compiled)) return standard(compiled.errors?.map((e) => e.message).join('; ') ?? 'not compiled');
      const debug = compiled as unknown as Record<string, unknown>;
      const source = debug[SOURCE_OF_DEBUG];
      delete debug[SOURCE_OF_DEBUG];
      const bytes = COMPILED_BYTES_PER_CHAR * (typeof source === 'string' ? source.length : UNKNOWN_CODE_CHARS);
      if (!documents.addCompiled(document, bytes)) return standard(`compiled code too large to keep (about ${Math.round(bytes / 1024)} KB)`);
      logger.debug('operation compiled', { operationName: named, operation: operation.operation, bytes });
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
