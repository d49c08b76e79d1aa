import type { InstalledApplication } from '../../domain/inventory.js';
import { builder } from '../builder.js';

export const InstalledApplicationRef = builder.objectRef<InstalledApplication>('InstalledApplication').implement({
  description: 'An application installed on a resource (GET /resources/{id}/applications).',
  fields: (t) => ({
    id: t.expose('id', { description: 'Application record id (may exceed 32 bits).', type: 'SafeInt', nullable: false }),
    name: t.exposeString('name', { description: 'Application name.', nullable: false }),
    vendor: t.exposeString('vendor', { description: 'Publisher.' }),
    version: t.exposeString('version', { description: 'Installed version.' }),
    installedAt: t.expose('installedAt', { type: 'DateTime', description: 'Upstream `installedDate`; null when unknown.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'Upstream `createdDate`.' }),
    modifiedAt: t.expose('modifiedAt', { type: 'DateTime', description: 'Upstream `modifiedDate`.' }),
  }),
});
