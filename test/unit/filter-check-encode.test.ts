/**
 * A filter is checked in one room (src/domain/input.ts) and encoded for the upstream in another
 * (src/upstream/query-string.ts), each once: the encoder takes only checked filters and checks
 * nothing; the checks are the only ones of their kind in src/.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDecommissionedFilter, checkMinimalListInput, checkResourceFilter, type ResourceFilter } from '../../src/domain/input.js';
import { validateUpdate } from '../../src/domain/update.js';
import { decommissionedQueryString, resourceQueryString } from '../../src/upstream/query-string.js';

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    return { code: (error as { extensions?: { code?: string } }).extensions?.code, field: (error as { extensions?: { field?: string } }).extensions?.field };
  }
  return null;
};

describe('checking a filter', () => {
  it('refuses what the queryString cannot carry, naming the argument', () => {
    expect(refusal(() => checkResourceFilter({ hostName: 'a+state:x' }))).toEqual({ code: 'BAD_USER_INPUT', field: 'filter.hostName' });
    expect(refusal(() => checkResourceFilter({ tags: ['a,b'] }))).toEqual({ code: 'BAD_USER_INPUT', field: 'filter.tags[0]' });
    expect(refusal(() => checkResourceFilter({ ipAddress: 'not-an-ip' }))).toEqual({ code: 'BAD_USER_INPUT', field: 'filter.ipAddress' });
    expect(refusal(() => checkResourceFilter({ id: 'a:b' }))).toEqual({ code: 'BAD_USER_INPUT', field: 'filter.id' });
    expect(refusal(() => checkResourceFilter({ deviceGroup: { name: 'a', exact: true }, serviceGroup: { name: 'b' } }))).toEqual({ code: 'BAD_USER_INPUT', field: 'filter' });
    expect(refusal(() => checkResourceFilter({ createdBetween: { from: new Date(2), to: new Date(1) } }))).toEqual({ code: 'BAD_USER_INPUT', field: 'filter.createdBetween' });
    expect(refusal(() => checkDecommissionedFilter({ owner: 'x\u2028y' }))).toEqual({ code: 'BAD_USER_INPUT', field: 'filter.owner' });
    expect(refusal(() => checkMinimalListInput({ filter: { aliasIp: '10.0.0.1' } }))).toEqual({ code: 'BAD_USER_INPUT', field: 'filter.aliasIp' });
  });

  it('keeps only what was given, trimmed', () => {
    expect(checkResourceFilter({ hostName: '  web  ', ipAddress: ' 10.0.0.1 ', tags: null, deviceGroup: { name: ' Lab ' } })).toEqual({ hostName: 'web', ipAddress: '10.0.0.1', deviceGroup: { name: 'Lab', exact: false } });
    expect(checkResourceFilter(null)).toBeNull();
  });
});

describe('encoding a checked filter', () => {
  it('writes the queryString in the upstream keys, one isEquals for the groups, dates in GMT', () => {
    const filter: ResourceFilter = {
      hostName: 'web', state: 'active', resourceTypes: ['Linux', 'Windows'], installedIntegrationId: '7', agentInstalled: true,
      deviceGroup: { name: 'Lab', exact: true }, deviceLocation: { name: 'Tokyo', exact: true }, assetManagedTime: new Date('2026-01-02T03:04:05.678Z'),
    };
    const checked = checkResourceFilter(filter);
    expect(resourceQueryString(checked)).toBe('hostName:web+state:active+resourceType:Linux,Windows+installedIntgId:7+agentInstalled:true+deviceGroup:Lab+deviceLocation:Tokyo+isEquals:true+assetManagedTime:2026-01-02T03:04:05Z');
    expect(resourceQueryString(checked, { withoutState: true })).not.toContain('state:');
    expect(resourceQueryString(null)).toBeUndefined();
    expect(decommissionedQueryString(checkDecommissionedFilter({ hostName: 'db', decommissionedBetween: { from: new Date('2026-01-01T00:00:00Z') } })))
      .toBe('state:DECOMMISSIONED+hostName:db+startDate:2026-01-01T00:00:00Z');
  });
});

describe('the update input: the same rules as every other argument', () => {
  it('refuses what the filter checks refuse, and accepts what they accept', () => {
    const codes = (input: Parameters<typeof validateUpdate>[0]) => validateUpdate(input).map((e) => `${e.field.join('.')}:${e.code}`);
    expect(codes({ tenantId: 'client_1', id: 'a:b', aliasName: 'x' })).toEqual(['input.id:INVALID_FORMAT']);
    expect(codes({ tenantId: 'client 1', id: 'r1', aliasName: 'x' })).toEqual(['input.tenantId:INVALID_FORMAT']);
    // C1 controls and line separators are control characters for the update as for a filter.
    expect(refusal(() => checkResourceFilter({ hostName: 'a\u0085b' }))).not.toBeNull();
    expect(codes({ tenantId: 'client_1', id: 'r1', aliasName: 'a\u0085b' })).toEqual(['input.aliasName:INVALID_FORMAT']);
    expect(codes({ tenantId: 'client_1', id: 'r1', alternateIP: 'fe80::1' })).toEqual([]);
  });
});

/** Every .ts file under a directory. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('each input rule is written once', () => {
  it('no pattern of src/domain/input.ts is written again in the gateway, and the encoder calls no check', () => {
    const input = readFileSync('src/domain/input.ts', 'utf8');
    const patterns = [...input.matchAll(/^const \w+ = (\/.+\/[a-z]*);$/gm)].map((m) => m[1]!);
    expect(patterns.length).toBeGreaterThan(3);
    // The simulator stands apart (it plays the upstream, with rules of its own).
    const copies = sources('src').filter((file) => !file.startsWith(join('src', 'simulator')) && file !== join('src', 'domain', 'input.ts'))
      .flatMap((file) => patterns.filter((pattern) => readFileSync(file, 'utf8').includes(pattern)).map((pattern) => `${file}: ${pattern}`));
    expect(copies).toEqual([]);
    const encoder = readFileSync('src/upstream/query-string.ts', 'utf8');
    expect(encoder).not.toMatch(/\bcheck\w*\(|badUserInput/);
  });
});
