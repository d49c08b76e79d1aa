/**
 * The default writer (stdout) writes lines together once per event-loop turn (src/logger.ts); no
 * line may be lost when the process ends before that turn: by process.exit right after logging,
 * or by an uncaught exception.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const LOGGER = fileURLToPath(new URL('../../src/logger.ts', import.meta.url));

function run(ending: string): Promise<string> {
  const script = `import { createLogger } from ${JSON.stringify(LOGGER)};
const logger = createLogger('info');
for (let i = 0; i < 500; i++) logger.info('request', { i });
${ending}`;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], (_error, stdout) => resolve(stdout));
  });
}

describe('logger on stdout', () => {
  it.each([
    ['process.exit right after', 'process.exit(3);'],
    ['an uncaught exception', "throw new Error('boom');"],
    ['the end of the program', ''],
  ])('writes every line, in order, when the process ends by %s', async (_name, ending) => {
    const lines = (await run(ending)).split('\n').filter(Boolean).map((line) => JSON.parse(line) as { i: number });
    expect(lines.map((l) => l.i)).toEqual(Array.from({ length: 500 }, (_, i) => i));
  }, 30_000);
});
