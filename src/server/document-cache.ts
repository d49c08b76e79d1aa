/**
 * Everything the gateway keeps per query document, in one place bounded by DOCUMENT_CACHE_MAX_BYTES.
 *
 * Yoga's parse cache is this LRU, keyed by the document's text: the parsed document, or the parse
 * error. Everything else kept per document is in WeakMaps keyed by the parsed document, so it dies
 * when the LRU lets the document go: Yoga's validation result, the walk of its selections
 * (src/schema/document-walk.ts), the estimates of operations without variables (limits.ts) and
 * the compiled code of its operations (compiled-execution.ts), by far the largest part.
 *
 * The LRU is bounded by an estimate of the heap each entry holds, measured on Node 20 (see
 * README, "Memory"): about 400 bytes per token of the parsed document plus its text, and about
 * 4 bytes per character of the code graphql-jit generates for it. A document's weight grows when
 * one of its operations is compiled (the code of a wide document can be megabytes: 30 aliases of
 * a page of resources with a dozen fields generate 2.4 million characters); compiled code that
 * would make a document weigh more than an eighth of the bound is not kept (the operation runs on
 * Yoga's executor), so a few huge documents cannot push every other one out.
 */
import { LRUCache } from 'lru-cache';
import type { DocumentNode } from 'graphql';

/** Heap of a parsed document (AST, locations, tokens, validation, walk, estimates): per entry, per token, per character of text. */
const PARSED_BASE_BYTES = 4_096;
const PARSED_BYTES_PER_TOKEN = 400;
const TEXT_BYTES_PER_CHAR = 2;
/** Heap of compiled code per character of generated source (the source V8 keeps, bytecode, closures, feedback). */
export const COMPILED_BYTES_PER_CHAR = 4;
/** No entry may weigh more than this share of the bound. */
const LARGEST_SHARE = 8;

/** Tokens of a parsed document (its locations link them; at most MAX_TOKENS). */
function tokensOf(document: DocumentNode): number {
  let n = 0;
  for (let token = document.loc?.startToken ?? null; token; token = token.next) n++;
  return n;
}

/** The parse cache's two views (Yoga's documentCache and errorCache) over one LRU. */
interface View<T> {
  get(text: string): T | undefined;
  set(text: string, value: T): void;
}

/** An LRU entry: the parsed document (or parse error) and what it weighs; replaced, never changed, when it grows (the LRU weighs an entry when it is set). */
interface Entry {
  value: object;
  bytes: number;
}

export class DocumentCache {
  private readonly entries: LRUCache<string, Entry>;
  /** Each cached document's text (its key). */
  private readonly textOf = new WeakMap<object, string>();
  readonly maxEntryBytes: number;

  constructor(readonly maxBytes: number) {
    this.maxEntryBytes = Math.max(1, Math.floor(maxBytes / LARGEST_SHARE));
    this.entries = new LRUCache<string, Entry>({ maxSize: maxBytes, maxEntrySize: this.maxEntryBytes, sizeCalculation: (entry) => Math.max(1, entry.bytes) });
  }

  /** Yoga's parserAndValidationCache: documents and parse errors in this LRU, validation results in Yoga's WeakMaps by document. */
  yogaCache(): { documentCache: View<DocumentNode>; errorCache: View<unknown>; validationCache: true } {
    return {
      documentCache: {
        get: (text) => {
          const value = this.entries.get(text)?.value;
          return value === undefined || value instanceof Error ? undefined : value as DocumentNode;
        },
        set: (text, document) => this.add(text, document, PARSED_BASE_BYTES + PARSED_BYTES_PER_TOKEN * tokensOf(document) + TEXT_BYTES_PER_CHAR * text.length),
      },
      errorCache: {
        get: (text) => {
          const value = this.entries.get(text)?.value;
          return value instanceof Error ? value : undefined;
        },
        set: (text, error) => {
          if (error instanceof Error) this.add(text, error, PARSED_BASE_BYTES + TEXT_BYTES_PER_CHAR * text.length);
        },
      },
      validationCache: true,
    };
  }

  private add(text: string, value: object, bytes: number): void {
    this.textOf.set(value, text);
    this.entries.set(text, { value, bytes });
  }

  /** The document's entry, when the cache holds it (a document parsed elsewhere, e.g. a batch's estimate, is not held). */
  private entryOf(document: DocumentNode): { text: string; entry: Entry } | null {
    const text = this.textOf.get(document);
    const entry = text === undefined ? undefined : this.entries.peek(text);
    return entry?.value === document ? { text: text!, entry } : null;
  }

  /** Whether the cache holds this document. */
  holds(document: DocumentNode): boolean {
    return this.entryOf(document) !== null;
  }

  /**
   * Compiled code of `bytes` is to be kept with the document: false when the document is not
   * cached (the code would be made again for each request) or would weigh more than an entry may;
   * else its weight grows by them (which may evict other documents).
   */
  addCompiled(document: DocumentNode, bytes: number): boolean {
    const held = this.entryOf(document);
    if (!held || held.entry.bytes + bytes > this.maxEntryBytes) return false;
    this.entries.set(held.text, { value: document, bytes: held.entry.bytes + bytes });
    return true;
  }

  /** Entries and their estimated bytes (metrics, tests, the memory bench). */
  stats(): { documents: number; bytes: number } {
    return { documents: this.entries.size, bytes: this.entries.calculatedSize };
  }
}
