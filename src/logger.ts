/**
 * JSON-lines logger. Every line passes through redaction: registered secrets (client secret,
 * issued tokens), bearer tokens and credential-looking keys never reach the output.
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /**
   * Values that must never be printed, such as a client secret or an access token. `token`: one
   * of a series that replace each other (issued access tokens): the latest 32 are kept, so a
   * gateway refreshing its token for weeks does not collect (and scan each line for) thousands.
   */
  addSecret(value: string | null | undefined, kind?: 'lasting' | 'token'): void;
}

/** Issued tokens redacted by value (addSecret's `token`): the latest ones. */
const MAX_TOKENS_REDACTED = 32;

const SECRET_KEYS = /^(authorization|access_token|client_secret|password|token|oauthclientsecret|oauthclientkey|secret)$/i;

/**
 * Lines for stdout, written together once per turn of the event loop: on a pipe or a file Node
 * writes stdout synchronously, a system call per write, which per request (the access log) was a
 * visible part of the gateway's CPU. Nothing is lost: what is pending is written synchronously
 * when the process exits, whatever the reason (process.exit, an uncaught exception, the end).
 */
let pending: string[] = [];
function flushStdout(): void {
  if (pending.length === 0) return;
  const text = `${pending.join('\n')}\n`;
  pending = [];
  process.stdout.write(text);
}
function writeStdout(line: string): void {
  // The first line of a turn schedules the turn's write.
  if (pending.length === 0) setImmediate(flushStdout);
  pending.push(line);
}
process.once('exit', flushStdout);

/**
 * Credential-looking keys become '[redacted]' and errors their name and message, as the line is
 * serialized (one pass, no copy of the fields).
 */
function redactingReplacer(key: string, value: unknown): unknown {
  if (key !== '' && SECRET_KEYS.test(key)) return '[redacted]';
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
}

/**
 * A bearer or basic credential in text (in a serialized line a space may be an escaped \t, \n or
 * \r), or a JWT on its own (a token pasted into a query, a variable, an error message).
 */
const CREDENTIAL_IN_TEXT = /(bearer|basic)(?:\s|\\[nrt])+[A-Za-z0-9._~+/=-]+|\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/gi;
const redactCredential = (_match: string, scheme: string | undefined) => (scheme ? `${scheme} [redacted]` : '[redacted]');

export function createLogger(level: LogLevel, write: (line: string) => void = writeStdout): Logger {
  /** Each registered secret as it appears in a serialized line: as is, and JSON-escaped when that differs. */
  const secrets = new Set<string>();
  /** The latest tokens, oldest first, each with its forms in a line. */
  const tokens = new Map<string, string[]>();
  const redact = (text: string, secret: string) => (text.includes(secret) ? text.split(secret).join('[redacted]') : text);
  /** Text redaction runs once on the whole serialized line, not on each of its strings. */
  const redactLine = (line: string): string => {
    let out = line.replace(CREDENTIAL_IN_TEXT, redactCredential);
    for (const secret of secrets) out = redact(out, secret);
    for (const forms of tokens.values()) for (const secret of forms) out = redact(out, secret);
    return out;
  };
  const log = (at: LogLevel) => (message: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[at] < ORDER[level]) return;
    write(redactLine(JSON.stringify({ level: at, time: new Date().toISOString(), msg: message, ...fields }, redactingReplacer)));
  };
  return {
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    addSecret(value, kind = 'lasting') {
      if (!value || value.length < 4) return;
      const forms = [...new Set([value, JSON.stringify(value).slice(1, -1)])];
      if (kind === 'lasting') {
        for (const form of forms) secrets.add(form);
        return;
      }
      tokens.delete(value);
      tokens.set(value, forms);
      if (tokens.size > MAX_TOKENS_REDACTED) tokens.delete(tokens.keys().next().value!);
    },
  };
}
