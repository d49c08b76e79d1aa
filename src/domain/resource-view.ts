/**
 * A resource as reached (ResourceView: the record at hand and where it came from) and the reads of
 * its fields by the field-source table (resource.ts): present, known-empty or absent, per selected
 * sub-field, merged across the records an operation has read.
 */
import { isRecord, record, str, type WireRecord } from './coerce.js';
import type { ResourceKind } from './resource-shapes.js';
import { type RecordForm, type ResourceOrigin, type FieldLoad, type FieldSource, type SubFieldSource, RESOURCE_FIELDS, type ResourceFieldName, type ResourceFields, documents, loadsFor } from './resource.js';

export interface ResourceView {
  tenantId: string;
  id: string;
  origin: ResourceOrigin;
  /** From the record's type/resourceType, or from the detail's shape; null when the record cannot tell. */
  kind: ResourceKind | null;
  record: WireRecord;
}

export type FieldRead<T> = { present: true; value: T } | { present: false };
const ABSENT = { present: false } as const;
/** No nested selection: a top-level field, or a nested one whose sub-fields do not matter. */
export const NO_SUBFIELDS: readonly string[] = [];

/** Whether a value is a resource as reached (other node values have shapes of their own). */
export function isResourceView(value: unknown): value is ResourceView {
  return typeof value === 'object' && value !== null && 'origin' in value && 'record' in value;
}

/** The type a resource is taken for when nothing tells: the short form, whose fields every record may carry. */
export const LEAST_SPECIFIC_KIND: ResourceKind = 'device';

/** The form a view's record has. */
export function formOf(view: ResourceView): RecordForm {
  return view.origin === 'detail' ? (view.kind ?? LEAST_SPECIFIC_KIND) : view.origin;
}

const MISSING: unique symbol = Symbol('missing');

/** The raw value of a field in a record, by its keys in order (a dot reads one level deeper). */
function rawAt(holder: WireRecord, keys: readonly string[]): unknown {
  for (const key of keys) {
    const dot = key.indexOf('.');
    const inner = dot < 0 ? holder : record(holder[key.slice(0, dot)]);
    const name = dot < 0 ? key : key.slice(dot + 1);
    if (inner && Object.hasOwn(inner, name)) return inner[name];
  }
  return MISSING;
}

/**
 * A field's raw value gathered from the records of one resource seen so far (the record at
 * hand first), and the forms of the records that carried it.
 */
export interface Gathered { present: boolean; raw: unknown; forms: RecordForm[] }

/**
 * Adds what another record of the same resource says. Nested records merge key by key, lists
 * element by element by index: every form of a resource lists the same elements in the same
 * order (the forms are projections of one record), while identity keys are exactly what a
 * partial element may lack (a tag without its source has its name, a network card may lack its
 * id). What an earlier record says stands.
 */
export function gather(into: Gathered | null, view: ResourceView, field: ResourceFieldName): Gathered {
  const own = rawAt(view.record, RESOURCE_FIELDS[field].keys);
  if (own === MISSING) return into ?? { present: false, raw: undefined, forms: [] };
  if (!into?.present) return { present: true, raw: own, forms: [formOf(view)] };
  return { present: true, raw: mergeRaw(into.raw, own), forms: [...into.forms, formOf(view)] };
}

function mergeRaw(first: unknown, then: unknown): unknown {
  if (isRecord(first) && isRecord(then)) {
    const out: WireRecord = { ...then };
    for (const [key, value] of Object.entries(first)) out[key] = Object.hasOwn(then, key) ? mergeRaw(value, then[key]) : value;
    return out;
  }
  if (Array.isArray(first) && Array.isArray(then)) return first.map((element, i) => (i < then.length ? mergeRaw(element, then[i]) : element));
  return first;
}

/**
 * Whether what was gathered answers the selection: the field is present and, for a nested
 * object, every selected sub-field and every identity sub-field stands in each nested record
 * (an opaque whole-record leaf only when a documenting form carried it). A known-empty value
 * ('' or null) or the upstream's string shorthand answers everything.
 */
export function answers(got: Gathered, field: ResourceFieldName, wanted: readonly string[]): boolean {
  if (!got.present) return false;
  if (!(RESOURCE_FIELDS[field] as FieldSource<unknown>).sub) return true;
  const needed = neededSubs(field, wanted);
  if (needed.length === 0) return true;
  const whole = got.forms.some((f) => documents(f, field));
  if (!Array.isArray(got.raw)) return carries(got.raw, needed, whole);
  for (const element of got.raw) if (!carries(element, needed, whole)) return false;
  return true;
}

/** Whether a nested record carries the needed sub-fields; `whole`: a documenting form supplied it (for opaque leaves). */
function carries(raw: unknown, needed: readonly SubFieldSource[], whole: boolean): boolean {
  if (!isRecord(raw)) return true;
  for (const s of needed) {
    if (s.keys.length === 0 ? !whole : rawAt(raw, s.keys) === MISSING) return false;
  }
  return true;
}

/** The selected and identity sub-fields of a nested field, with their sources. */
const neededByField = new Map<ResourceFieldName, WeakMap<readonly string[], SubFieldSource[]>>();
function neededSubs(field: ResourceFieldName, wanted: readonly string[]): SubFieldSource[] {
  // Selections are cached per field node, so this is computed once per field per document.
  let byWanted = neededByField.get(field);
  if (!byWanted) neededByField.set(field, (byWanted = new WeakMap()));
  let needed = byWanted.get(wanted);
  if (!needed) {
    const source: FieldSource<unknown> = RESOURCE_FIELDS[field];
    needed = [...new Set([...(source.identity ?? []), ...wanted])].map((name) => source.sub?.[name]).filter((s): s is SubFieldSource => s !== undefined);
    byWanted.set(wanted, needed);
  }
  return needed;
}

/**
 * Whether a read can add to what was gathered: always for a plain field or an absent one; for a
 * nested object, when some sub-field still missing names that read among its loads.
 */
export function readHelps(got: Gathered, field: ResourceFieldName, wanted: readonly string[], load: FieldLoad): boolean {
  if (!got.present || !(RESOURCE_FIELDS[field] as FieldSource<unknown>).sub) return true;
  const raws = Array.isArray(got.raw) ? got.raw : [got.raw];
  const missing = neededSubs(field, wanted).filter((s) => s.keys.length === 0 ? !got.forms.some((f) => documents(f, field)) : raws.some((r) => isRecord(r) && rawAt(r, s.keys) === MISSING));
  return missing.some((s) => (s.loads ?? loadsFor(field)).includes(load));
}

/** The same for the cost estimate: whether a read can supply a selected sub-field the form does not document. */
export function readHelpsForm(form: RecordForm, field: ResourceFieldName, wanted: readonly string[], load: FieldLoad): boolean {
  const source: FieldSource<unknown> = RESOURCE_FIELDS[field];
  if (!source.sub || !documents(form, field)) return true;
  return neededSubs(field, wanted)
    .filter((s) => s.documented !== undefined && !s.documented.includes(form))
    .some((s) => (s.loads ?? loadsFor(field)).includes(load));
}

export function valueOf<K extends ResourceFieldName>(got: Gathered, field: K): ResourceFields[K] {
  return (RESOURCE_FIELDS[field] as FieldSource<ResourceFields[K]>).read(got.raw);
}

/** A field of the record at hand, when it answers the selection (maybe known-empty); else absent. */
export function readField<K extends ResourceFieldName>(view: ResourceView, field: K, wanted: readonly string[] = NO_SUBFIELDS): FieldRead<ResourceFields[K]> {
  const source = RESOURCE_FIELDS[field] as FieldSource<ResourceFields[K]>;
  const raw = rawAt(view.record, source.keys);
  if (raw === MISSING) return ABSENT;
  // The hot path (every field of every item of a page): no gathering for a plain field.
  if (!source.sub) return { present: true, value: source.read(raw) };
  const needed = neededSubs(field, wanted);
  const whole = documents(formOf(view), field);
  const complete = !Array.isArray(raw) ? carries(raw, needed, whole) : raw.every((element) => carries(element, needed, whole));
  return complete ? { present: true, value: source.read(raw) } : ABSENT;
}

/** Whether a record of this form documents the field with these sub-fields (for the cost estimate). */
export function documentsSelection(form: RecordForm, field: ResourceFieldName, wanted: readonly string[]): boolean {
  if (!documents(form, field)) return false;
  const source: FieldSource<unknown> = RESOURCE_FIELDS[field];
  return [...(source.identity ?? []), ...wanted].every((name) => {
    const sub = source.sub?.[name];
    return !sub?.documented || sub.documented.includes(form);
  });
}

/** The schema names of a nested field's sub-fields, for selections. */
export function hasSubFields(field: string): boolean {
  return Object.hasOwn(RESOURCE_FIELDS, field) && (RESOURCE_FIELDS[field as ResourceFieldName] as FieldSource<unknown>).sub !== undefined;
}

/**
 * The concrete type from the record's own words (seen on the real API): SYNTHETIC in type or
 * resourceType is a synthetic check, type DEVICE has the general detail form, any other type
 * (cloud and service items) the short form. A record with neither key cannot tell.
 */
export function kindFromRecord(raw: WireRecord): ResourceKind | null {
  const type = str(raw.type)?.toUpperCase();
  if (type === 'SYNTHETIC' || str(raw.resourceType)?.toUpperCase() === 'SYNTHETIC') return 'synthetic';
  if (type === undefined) return null;
  return type === 'DEVICE' ? 'general' : 'device';
}

/** The shape of a detail record: generalInfo -> general; SYNTHETIC -> synthetic; otherwise the short form. */
export function detailKind(raw: WireRecord): ResourceKind {
  if (isRecord(raw.generalInfo)) return 'general';
  return kindFromRecord(raw) === 'synthetic' ? 'synthetic' : LEAST_SPECIFIC_KIND;
}

/** A record becomes a view only with a usable id; others are dropped (a null hole in a page). */
export function toResourceView(tenantId: string, raw: unknown, origin: ResourceOrigin): ResourceView | null {
  if (!isRecord(raw)) return null;
  const id = str(raw.id);
  if (id === null) return null;
  return { tenantId, id, origin, kind: origin === 'detail' ? detailKind(raw) : kindFromRecord(raw), record: raw };
}
