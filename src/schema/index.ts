/** Assembles the schema: importing the type modules registers them on the builder. */
import { lexicographicSortSchema } from 'graphql';
import './types/scalars.js';
import './types/enums.js';
import './types/common.js';
import './types/resource.js';
import './types/decommissioned.js';
import './types/antivirus.js';
import './types/resource-type.js';
import './types/tenant.js';
import './types/summary.js';
import './types/mutation.js';
import './types/entities.js';
import { builder } from './builder.js';

/** The served schema is an Apollo Federation v2 subgraph (with _entities and _service). */
export const schema = lexicographicSortSchema(builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.3' }));
