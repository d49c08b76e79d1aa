/**
 * A Pothos plugin that gives every field its @cost/@listSize from the one table of what fields
 * cost (field-costs.ts), by type and field name, before the federation plugin emits them: no
 * field declares its own, so the schema and the estimate cannot disagree. A field of an interface
 * whose entry says `onImplementations` gets them on the implementations' copies only, as
 * composition requires. Object types get their weight (objectWeight) the same way.
 */
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type PothosTypeConfig, type SchemaTypes } from '@pothos/core';
import { costOf, directivesOf, objectWeight } from './field-costs.js';

export class PricingPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onTypeConfig(typeConfig: PothosTypeConfig): PothosTypeConfig {
    const weight = typeConfig.kind === 'Object' ? objectWeight(typeConfig.name) : undefined;
    return weight === undefined ? typeConfig : { ...typeConfig, pothosOptions: { ...typeConfig.pothosOptions, cost: weight } } as PothosTypeConfig;
  }

  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    const { declaringType } = fieldConfig as { declaringType?: string };
    const entry = costOf(declaringType ?? fieldConfig.parentType, fieldConfig.name);
    if (!entry || (entry.onImplementations && declaringType === undefined)) return fieldConfig;
    return { ...fieldConfig, pothosOptions: { ...fieldConfig.pothosOptions, ...directivesOf(entry) } } as PothosOutputFieldConfig<Types>;
  }
}

declare global {
  // Pothos registers plugins in this global namespace.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    interface Plugins<Types extends SchemaTypes> {
      pricing: PricingPlugin<Types>;
    }
  }
}

SchemaBuilder.registerPlugin('pricing', PricingPlugin);
