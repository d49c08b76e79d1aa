/** The Pothos builder: context, scalar typing and plugins (federation); types live in ./types. */
import SchemaBuilder from '@pothos/core';
import DirectivePlugin from '@pothos/plugin-directives';
import FederationPlugin from '@pothos/plugin-federation';
import type { GatewayContext } from '../context.js';

export interface GatewaySchemaTypes {
  Context: GatewayContext;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    SafeInt: { Input: number; Output: number };
    JSON: { Input: unknown; Output: unknown };
  };
}

export const builder = new SchemaBuilder<GatewaySchemaTypes>({
  plugins: [DirectivePlugin, FederationPlugin],
});

export type GatewayTypes = PothosSchemaTypes.ExtendDefaultTypes<GatewaySchemaTypes>;
