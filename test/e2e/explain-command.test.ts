/**
 * Issue 40: `npm run explain` for a frontend's CI, run as CI runs it (a process, over the
 * repository's own example documents and its trusted-documents manifest).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function explain(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('npm', ['run', '-s', 'explain', '--', ...args], { cwd: ROOT, env: { ...process.env, NODE_ENV: '' } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('npm run explain', () => {
  it('prints each operation of the example documents with its calls per category and share of a minute, and exits 0', async () => {
    const { code, stdout, stderr } = await explain('test/operations/*.graphql');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(/^operation\s+calls\s+paginated \(of a minute\)\s+other \(of a minute\)\s+update \(of a minute\)\s+verdict\s+driven by$/);
    // An unset page size is the default (50): 1 search, 50 applications and 50 availability reads.
    expect(lines).toContainEqual(expect.stringMatching(/^test\/operations\/nested-page\.graphql NestedPage\s+101\s+1 \(2%\)\s+100 \(20%\)\s+-\s+full\s+tenant\.resources\.nodes\.(applications|availability): 50 resources × one (applications|availability) read$/));
    expect(lines).toContainEqual(expect.stringMatching(/^test\/operations\/update-resource\.graphql UpdateResource\s+\d+\s.*\s1 \(4%\)\s+full/));
    expect(stdout).toContain('explain: 4 operations, none over the threshold.');
  }, 60_000);

  it('names the document over --max-share and exits 1; the same for --max-calls, and for a manifest', async () => {
    const share = await explain('test/operations/*.graphql', '--max-share', '0.15');
    expect(share.code).toBe(1);
    expect(share.stderr).toContain('test/operations/nested-page.graphql NestedPage: 20% of a tenant\'s minute, over --max-share 0.15');
    expect(share.stderr).not.toMatch(/resource-page|resource-detail|update-resource/);
    const calls = await explain('test/__generated__/persisted-documents.json', '--max-calls=100');
    expect(calls.code).toBe(1);
    expect(calls.stderr).toMatch(/persisted-documents\.json#sha256:[0-9a-f]+ NestedPage: 101 upstream calls, over --max-calls 100/);
    // Given the page size the frontend sends, the same operation fits.
    const sized = await explain('test/operations/nested-page.graphql', '--max-calls', '100', '--variables', '{"first": 20}');
    expect(sized.code).toBe(0);
    expect(sized.stdout).toMatch(/NestedPage\s+41\s/);
  }, 60_000);
});
