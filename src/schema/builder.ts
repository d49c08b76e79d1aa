/** The Pothos builder: context and scalar typing only; types live in ./types. */
import SchemaBuilder from '@pothos/core';
import type { GatewayContext } from '../context.js';

export interface GatewaySchemaTypes {
  Context: GatewayContext;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    SafeInt: { Input: number; Output: number };
    JSON: { Input: unknown; Output: unknown };
  };
}

export const builder = new SchemaBuilder<GatewaySchemaTypes>({});

export type GatewayTypes = PothosSchemaTypes.ExtendDefaultTypes<GatewaySchemaTypes>;
