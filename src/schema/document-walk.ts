/**
 * Walks over a parsed document that cost time linear in its size, however its fragments nest.
 *
 * A naive walk expands every fragment spread where it stands, so a fragment spread twice by a
 * fragment spread twice by ... costs 2^levels; thirty levels fit in 1.2 kB. Here each
 * selection set is measured and flattened once per document (results are memoized on the
 * document, which Yoga's parse cache reuses across requests), and a spread reuses the
 * fragment's result. Counts that multiply through spreads (aliases, expansions) are computed
 * arithmetically, never by expanding.
 */
import { Kind, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';

/** A field reached from a selection set through inline fragments and spreads, with the type condition it sits under. */
export interface CollectedField { field: FieldNode; on: string | null }

export interface SelectionShape {
  /** Deepest nesting of fields and inline fragments (spreads add no level). */
  depth: number;
  /** Aliased fields, each fragment expansion counted. */
  aliases: number;
  /** Fragment spreads a naive expansion would visit. */
  expansions: number;
}

/** Counts saturate here: far beyond any limit, and still exact integers. */
const SATURATED = 2 ** 50;
const cap = (n: number) => Math.min(n, SATURATED);
const EMPTY: SelectionShape = { depth: 0, aliases: 0, expansions: 0 };

export class DocumentWalk {
  readonly fragments = new Map<string, FragmentDefinitionNode>();
  private readonly shapes = new WeakMap<SelectionSetNode, SelectionShape>();
  private readonly collected = new WeakMap<SelectionSetNode, readonly CollectedField[]>();
  /** Sets being walked: a fragment cycle (refused by validation) must not recurse forever here. */
  private readonly openShapes = new WeakSet<SelectionSetNode>();
  private readonly openFields = new WeakSet<SelectionSetNode>();

  constructor(document: DocumentNode) {
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) this.fragments.set(d.name.value, d);
  }

  shape(set: SelectionSetNode | undefined): SelectionShape {
    if (!set) return EMPTY;
    const known = this.shapes.get(set);
    if (known) return known;
    if (this.openShapes.has(set)) return EMPTY;
    this.openShapes.add(set);
    let depth = 0;
    let aliases = 0;
    let expansions = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        const inner = this.shape(s.selectionSet);
        depth = Math.max(depth, 1 + inner.depth);
        aliases += (s.alias ? 1 : 0) + inner.aliases;
        expansions += inner.expansions;
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        const inner = this.shape(s.selectionSet);
        depth = Math.max(depth, 1 + inner.depth);
        aliases += inner.aliases;
        expansions += inner.expansions;
      } else {
        const inner = this.shape(this.fragments.get(s.name.value)?.selectionSet);
        depth = Math.max(depth, inner.depth);
        aliases += inner.aliases;
        expansions += 1 + inner.expansions;
      }
    }
    this.openShapes.delete(set);
    const shape = { depth, aliases: cap(aliases), expansions: cap(expansions) };
    this.shapes.set(set, shape);
    return shape;
  }

  /**
   * The fields of a selection set through inline fragments and spreads, each (field, type
   * condition) once: what graphql-js's collectFields sees, before merging by response key.
   */
  fields(set: SelectionSetNode | undefined): readonly CollectedField[] {
    if (!set) return [];
    const known = this.collected.get(set);
    if (known) return known;
    if (this.openFields.has(set)) return [];
    this.openFields.add(set);
    const out: CollectedField[] = [];
    const seen = new Map<FieldNode, Set<string | null>>();
    const add = (field: FieldNode, on: string | null) => {
      let conditions = seen.get(field);
      if (!conditions) seen.set(field, (conditions = new Set()));
      if (conditions.has(on)) return;
      conditions.add(on);
      out.push({ field, on });
    };
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) add(s, null);
      else if (s.kind === Kind.INLINE_FRAGMENT) {
        for (const inner of this.fields(s.selectionSet)) add(inner.field, inner.on ?? s.typeCondition?.name.value ?? null);
      } else {
        const fragment = this.fragments.get(s.name.value);
        if (fragment) for (const inner of this.fields(fragment.selectionSet)) add(inner.field, inner.on ?? fragment.typeCondition.name.value);
      }
    }
    this.openFields.delete(set);
    this.collected.set(set, out);
    return out;
  }
}

const walks = new WeakMap<DocumentNode, DocumentWalk>();

/** The walk of a document, made once per document object. */
export function documentWalk(document: DocumentNode): DocumentWalk {
  let walk = walks.get(document);
  if (!walk) walks.set(document, (walk = new DocumentWalk(document)));
  return walk;
}

/** The operation that runs, as graphql-js picks it: the named one, or the first. */
export function operationOf(document: DocumentNode, operationName: string | null | undefined): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
}
