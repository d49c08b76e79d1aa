/** Look-ahead into a field's selection set, through fragments, for loading decisions. */
import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

export function selectsAnyField(info: GraphQLResolveInfo, names: ReadonlySet<string>): boolean {
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode | undefined): boolean => {
    if (!set) return false;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD && names.has(selection.name.value)) return true;
      if (selection.kind === Kind.INLINE_FRAGMENT && visit(selection.selectionSet)) return true;
      if (selection.kind === Kind.FRAGMENT_SPREAD && !seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        if (visit(info.fragments[selection.name.value]?.selectionSet)) return true;
      }
    }
    return false;
  };
  return info.fieldNodes.some((node) => visit(node.selectionSet));
}

const concreteTypeNeeds = new WeakMap<object, boolean>();

/**
 * Whether the selection on an abstract-typed field can tell its concrete types apart: it asks
 * for __typename, or has a fragment on a type other than the abstract type itself. When it
 * cannot, every implementation resolves the same interface fields the same way, so resolveType
 * may answer without loading anything. Cached per field node (documents are reused).
 */
export function selectionNeedsConcreteType(info: GraphQLResolveInfo, abstractTypeName: string): boolean {
  const key = info.fieldNodes[0] as object;
  const cached = concreteTypeNeeds.get(key);
  if (cached !== undefined && info.fieldNodes.length === 1) return cached;
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode | undefined): boolean => {
    if (!set) return false;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === '__typename') return true;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition?.name.value;
        if ((on !== undefined && on !== abstractTypeName) || visit(selection.selectionSet)) return true;
      } else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const fragment = info.fragments[selection.name.value];
        if (!fragment) continue;
        if (fragment.typeCondition.name.value !== abstractTypeName || visit(fragment.selectionSet)) return true;
      }
    }
    return false;
  };
  const needs = info.fieldNodes.some((node) => visit(node.selectionSet));
  if (info.fieldNodes.length === 1) concreteTypeNeeds.set(key, needs);
  return needs;
}

const subFieldsByNode = new WeakMap<object, readonly string[]>();

/**
 * The names of the fields selected on a field's object, through fragments: a nested object of
 * a resource is answered from the record at hand only when that record carries all of them.
 * Cached per field node (documents are reused), so the synchronous fast path stays cheap.
 */
export function subFieldNames(info: GraphQLResolveInfo): readonly string[] {
  const key = info.fieldNodes[0] as object;
  const cached = subFieldsByNode.get(key);
  if (cached !== undefined && info.fieldNodes.length === 1) return cached;
  const names = new Set<string>();
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode | undefined): void => {
    if (!set) return;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) names.add(selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet);
      else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        visit(info.fragments[selection.name.value]?.selectionSet);
      }
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet);
  const out = [...names];
  if (info.fieldNodes.length === 1) subFieldsByNode.set(key, out);
  return out;
}
