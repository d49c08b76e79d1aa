/** Schema changes between two SDL versions, classified by GraphQL Inspector. */
import { CriticalityLevel, diff, type Change } from '@graphql-inspector/core';
import { buildSchema } from 'graphql';

export interface SchemaReport { breaking: Change[]; dangerous: Change[]; safe: Change[] }

export async function compareSchemas(oldSdl: string, newSdl: string): Promise<SchemaReport> {
  const changes = await diff(buildSchema(oldSdl), buildSchema(newSdl));
  return {
    breaking: changes.filter((c) => c.criticality.level === CriticalityLevel.Breaking),
    dangerous: changes.filter((c) => c.criticality.level === CriticalityLevel.Dangerous),
    safe: changes.filter((c) => c.criticality.level === CriticalityLevel.NonBreaking),
  };
}
