import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { assertNoSecrets } from '../support/harness.js';

describe('logger', () => {
  it('redacts registered secrets, bearer tokens and credential keys', () => {
    const lines: string[] = [];
    const logger = createLogger('debug', (line) => lines.push(line));
    logger.addSecret('s3cr3t-value');
    logger.warn('token s3cr3t-value refused', { authorization: 'Bearer abc.def', nested: { client_secret: 'x', note: 'see Bearer zzz' }, error: new Error('has s3cr3t-value') });
    const text = lines.join('\n');
    expect(text).not.toContain('s3cr3t-value');
    expect(text).not.toContain('abc.def');
    expect(text).not.toContain('zzz');
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'warn', authorization: '[redacted]', nested: { client_secret: '[redacted]' } });
  });

  it('redacts a secret that serializes escaped, a credential after a tab or newline, and keys at any depth', () => {
    const lines: string[] = [];
    const logger = createLogger('debug', (line) => lines.push(line));
    logger.addSecret('pa"ss\\word');
    logger.error('failed', { detail: 'sent pa"ss\\word', header: 'Bearer\tqqq.rrr', deep: { a: [{ password: 'p1' }] } });
    expect(lines[0]).not.toContain('ss\\\\word');
    expect(lines[0]).not.toContain('qqq.rrr');
    expect(JSON.parse(lines[0]!)).toMatchObject({ detail: 'sent [redacted]', deep: { a: [{ password: '[redacted]' }] } });
  });

  it('keeps the latest 32 issued tokens for redaction, and every lasting secret, however many tokens come', () => {
    const lines: string[] = [];
    const logger = createLogger('debug', (line) => lines.push(line));
    logger.addSecret('client-secret-value');
    for (let i = 0; i < 1_000; i++) logger.addSecret(`access-token-${i}`, 'token');
    logger.warn('seen', { a: 'client-secret-value', b: 'access-token-999', c: 'access-token-968', d: 'access-token-967' });
    expect(JSON.parse(lines[0]!)).toMatchObject({ a: '[redacted]', b: '[redacted]', c: '[redacted]', d: 'access-token-967' });
  });

  it('respects the level', () => {
    const lines: string[] = [];
    const logger = createLogger('warn', (line) => lines.push(line));
    logger.info('quiet');
    logger.error('loud');
    expect(lines).toHaveLength(1);
  });

  it('the test-suite log check finds leaks', () => {
    expect(() => assertNoSecrets(['{"msg":"ok"}'], ['abcdef'])).not.toThrow();
    expect(() => assertNoSecrets(['{"msg":"token abcdef"}'], ['abcdef'])).toThrow(/secrets in the logs/);
    expect(() => assertNoSecrets(['{"msg":"Bearer xyz"}'], [])).toThrow(/Authorization/);
    expect(() => assertNoSecrets(['{"msg":"sim-token-0123456789abcdef"}'], [])).toThrow(/access token/);
  });
});
