import type { AntivirusDefinition } from '../../domain/inventory.js';
import { builder } from '../builder.js';
import { connectionType } from './connection.js';
import { AntivirusStatusEnum } from './enums.js';
import { ResourceRef } from './resource.js';

export const AntivirusDefinitionRef = builder.objectRef<AntivirusDefinition>('AntivirusDefinition').implement({
  description: 'Antivirus definition status of one resource (GET /resources/antivirus/search).',
  fields: (t) => ({
    name: t.exposeString('name'),
    version: t.exposeString('version'),
    currentDefinition: t.exposeString('currentDefinition'),
    currentDefinitionDate: t.expose('currentDefinitionDate', { type: 'DateTime' }),
    scanDate: t.expose('scanDate', { type: 'DateTime' }),
    supported: t.exposeBoolean('supported'),
    status: t.expose('status', { type: AntivirusStatusEnum }),
    resource: t.field({ type: ResourceRef, description: 'The scanned resource, a full Resource (its other fields load lazily).', resolve: (a) => a.resource }),
  }),
});

export const AntivirusDefinitionConnectionRef = connectionType('AntivirusDefinition', AntivirusDefinitionRef, 'antivirus definition');
