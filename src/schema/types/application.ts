import type { InstalledApplication } from '../../domain/records.js';
import { builder } from '../builder.js';

export const InstalledApplicationRef = builder.objectRef<InstalledApplication>('InstalledApplication').implement({
  description: 'An application installed on a resource.',
  fields: (t) => ({
    number: t.expose('number', { description: 'Number of the application record (may exceed 32 bits); unique per resource.', type: 'SafeInt', nullable: false }),
    name: t.exposeString('name', { description: 'Application name.', nullable: false }),
    vendor: t.exposeString('vendor', { description: 'Publisher.' }),
    version: t.exposeString('version', { description: 'Installed version.' }),
    installedAt: t.expose('installedAt', { type: 'DateTime', description: 'When it was installed; null when unknown.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the inventory first saw it.' }),
    modifiedAt: t.expose('modifiedAt', { type: 'DateTime', description: 'When the inventory last saw it change.' }),
  }),
});
