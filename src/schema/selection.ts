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
