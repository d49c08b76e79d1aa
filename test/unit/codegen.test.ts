/**
 * A wrong field is caught before anything runs: codegen refuses it in an operation, tsc in code.
 * (That the checked-in output is current is checked by `npm run codegen:check` in CI.)
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { generate } from '@graphql-codegen/cli';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const scratch = mkdtempSync(`${root}test/.scratch-`);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const clientPreset = (documents: string[]) => ({
  cwd: root,
  schema: 'schema/schema.graphql',
  documents,
  emitLegacyCommonJSImports: false,
  silent: true,
  generates: {
    'test/__generated__/': {
      preset: 'client' as const,
      presetConfig: { fragmentMasking: false },
      config: {
        useTypeImports: true, enumsAsTypes: true, strictScalars: true,
        scalars: { DateTime: 'string', SafeInt: 'number', JSON: 'unknown', _Any: 'unknown', link__Import: 'unknown', federation__FieldSet: 'string' },
      },
    },
  },
});

describe('codegen', () => {
  it('refuses an operation that asks for a field the schema does not have', async () => {
    const bad = `${scratch}/bad.graphql`;
    writeFileSync(bad, 'query Bad { tenant(id: "client_1") { resources(first: 1) { nodes { id noSuchField } } } }');
    await expect(generate(clientPreset([bad]), false)).rejects.toThrow(/noSuchField/);
  });

  it('fails typecheck when code reads a field the operation did not select', async () => {
    const file = (name: string, body: string) => {
      const path = `${scratch}/${name}.ts`;
      writeFileSync(path, `import type { NestedPageQuery } from '../__generated__/graphql.js';\ndeclare const q: NestedPageQuery;\n${body}\n`);
      return path;
    };
    const tsc = (path: string) =>
      run(`${root}node_modules/.bin/tsc`, ['--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', path], { cwd: root }).then(
        () => ({ ok: true, out: '' }),
        (error: { stdout: string }) => ({ ok: false, out: error.stdout }),
      );
    const good = await tsc(file('good', 'export const name = q.tenant.resources?.nodes[0]?.applications?.[0]?.name;'));
    expect(good).toEqual({ ok: true, out: '' });
    const wrong = await tsc(file('wrong', 'export const os = q.tenant.resources?.nodes[0]?.osName;'));
    expect(wrong.ok).toBe(false);
    expect(wrong.out).toMatch(/TS(2339|2551): Property 'osName' does not exist/);
  });
});
