/**
 * A wrong field is caught before anything runs: codegen refuses it in an operation, tsc in code.
 * (That the checked-in output is current is checked by `npm run codegen:check` in CI.)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generate } from '@graphql-codegen/cli';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
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
    const good = file('good', 'export const name = q.tenant?.resources?.nodes[0]?.applications?.[0]?.name;');
    const wrong = file('wrong', 'export const os = q.tenant?.resources?.nodes[0]?.osName;');
    // tsc's checker in this process, one program for both files (what `tsc --noEmit --strict` reports per file).
    const program = ts.createProgram([good, wrong], {
      noEmit: true, strict: true, skipLibCheck: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022,
    });
    const tsc = (path: string) => {
      const diagnostics = ts.getPreEmitDiagnostics(program, program.getSourceFile(path));
      return { ok: diagnostics.length === 0, out: diagnostics.map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`).join('\n') };
    };
    expect(tsc(good)).toEqual({ ok: true, out: '' });
    const wrongCheck = tsc(wrong);
    expect(wrongCheck.ok).toBe(false);
    expect(wrongCheck.out).toMatch(/TS(2339|2551): Property 'osName' does not exist/);
  });
});
