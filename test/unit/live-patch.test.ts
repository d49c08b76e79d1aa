/**
 * The live payloads (LivePatcher): a JSON Patch when it is smaller than the result, else the full
 * result again; the client library of the convention (applyLiveQueryJSONPatch) rebuilds every
 * result from them.
 */
import { applyLiveQueryJSONPatch } from '@n1ru4l/graphql-live-query-patch-json-patch';
import { describe, expect, it } from 'vitest';
import { LivePatcher, type LivePayload } from '../../src/server/live/live-payloads.js';

const page = (names: string[]) => ({ tenant: { resources: { totalCount: names.length, nodes: names.map((name, i) => ({ id: `r${i}`, name })) } } });

async function rebuilt(payloads: LivePayload[]): Promise<unknown[]> {
  async function* source() {
    yield* payloads;
  }
  const out: unknown[] = [];
  for await (const result of applyLiveQueryJSONPatch(source() as never) as AsyncIterable<{ data: unknown }>) out.push(result.data);
  return out;
}

describe('LivePatcher', () => {
  it('sends the first result in full, then patches, the full result when a patch would be larger, and nothing when nothing changed', async () => {
    const patcher = new LivePatcher(true);
    const results = [
      page(['a', 'b', 'c', 'd']),
      page(['a', 'B', 'c', 'd']),
      page(['a', 'B', 'c', 'd']),
      page(['wholly', 'other', 'names', 'here', 'now']),
      page(['wholly', 'other', 'names', 'here', 'then']),
    ];
    const payloads = results.map((data) => patcher.payloadOf({ data }));
    expect(payloads.map((p) => (p === null ? 'none' : p.patch ? `patch ${p.revision}` : `full ${p.revision}`))).toEqual(['full 1', 'patch 2', 'none', 'full 1', 'patch 2']);
    expect(payloads[1]!.patch).toEqual([{ op: 'replace', path: '/tenant/resources/nodes/1/name', value: 'B' }]);
    const sent = payloads.filter((p): p is LivePayload => p !== null);
    expect(await rebuilt(sent)).toEqual([results[0], results[1], results[3], results[4]]);
  });

  it('sends a payload with an empty patch when only the extensions changed (the stale flag), and full results when asked for no patches', () => {
    const patcher = new LivePatcher(true);
    patcher.payloadOf({ data: page(['a']) });
    expect(patcher.payloadOf({ data: page(['a']), extensions: { stale: { reason: 'upstream-error' } } })).toEqual({ patch: [], revision: 2, extensions: { stale: { reason: 'upstream-error' } } });
    const full = new LivePatcher(false);
    full.payloadOf({ data: page(['a']) });
    expect(full.payloadOf({ data: page(['b']) })).toEqual({ data: page(['b']), revision: 1 });
    expect(full.payloadOf({ data: page(['b']) })).toBeNull();
  });
});
