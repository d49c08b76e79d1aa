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
import './types/mutation.js';
import { builder } from './builder.js';

export const schema = lexicographicSortSchema(builder.toSchema());
