import { describe, expect, it } from 'vitest';
import { compareSchemas } from '../../src/tools/schema-diff.js';

const BASE = 'type Query { tenant(id: ID!): Tenant! } type Tenant { id: ID! name: String tags: [String!]! }';

describe('schema diff', () => {
  it('reports a removed field and a field made nullable as breaking', async () => {
    const report = await compareSchemas(BASE, 'type Query { tenant(id: ID!): Tenant! } type Tenant { id: ID! tags: [String!] }');
    expect(report.breaking.map((c) => c.message).sort()).toEqual([
      "Field 'Tenant.tags' changed type from '[String!]!' to '[String!]'",
      "Field 'name' was removed from object type 'Tenant'",
    ]);
  });

  it('reports an added field as safe', async () => {
    const report = await compareSchemas(BASE, 'type Query { tenant(id: ID!): Tenant! } type Tenant { id: ID! name: String tags: [String!]! city: String }');
    expect(report.breaking).toEqual([]);
    expect(report.safe.map((c) => c.message)).toEqual(["Field 'city' was added to object type 'Tenant'"]);
  });
});
