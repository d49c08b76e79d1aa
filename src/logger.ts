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
  /** Values that must never be printed, such as a client secret or an access token. */
  addSecret(value: string | null | undefined): void;
}

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

export function createLogger(level: LogLevel, write: (line: string) => void = writeStdout): Logger {
  const secrets = new Set<string>();
  const redactText = (text: string): string => {
    let out = text.replace(/(bearer|basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]');
    for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
    return out;
  };
  const redact = (value: unknown, depth = 0): unknown => {
    if (typeof value === 'string') return redactText(value);
    if (depth > 5 || value === null || typeof value !== 'object') return value;
    if (value instanceof Error) return { name: value.name, message: redactText(value.message) };
    if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_KEYS.test(k) ? '[redacted]' : redact(v, depth + 1)]),
    );
  };
  const log = (at: LogLevel) => (message: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[at] < ORDER[level]) return;
    write(JSON.stringify({ level: at, time: new Date().toISOString(), msg: redactText(message), ...(redact(fields) as object) }));
  };
  return {
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    addSecret(value) {
      if (value) secrets.add(value);
    },
  };
}
