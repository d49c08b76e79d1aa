import type { AntivirusDefinition } from '../../domain/records.js';
import { builder } from '../builder.js';
import { connectionType } from './connection.js';
import { AntivirusStatusEnum } from './enums.js';
import { ResourceRef } from './resource.js';

export const AntivirusDefinitionRef = builder.objectRef<AntivirusDefinition>('AntivirusDefinition').implement({
  description: 'Antivirus definition status of one resource.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Antivirus product name.' }),
    version: t.exposeString('version', { description: 'Antivirus product version.' }),
    currentDefinition: t.exposeString('currentDefinition', { description: 'Version of the definitions installed.' }),
    currentDefinitionDate: t.expose('currentDefinitionDate', { description: 'When the installed definitions were published.', type: 'DateTime' }),
    scanDate: t.expose('scanDate', { description: 'When the resource was last scanned.', type: 'DateTime' }),
    supported: t.exposeBoolean('supported', { description: 'Whether the product is supported for status reporting.' }),
    status: t.expose('status', { description: 'Whether the definitions are current.', type: AntivirusStatusEnum }),
    resource: t.field({ type: ResourceRef, description: 'The scanned resource, a full Resource (its other fields load lazily).', resolve: (a) => a.resource }),
  }),
});

export const AntivirusDefinitionConnectionRef = connectionType('AntivirusDefinition', AntivirusDefinitionRef, 'antivirus definition');
