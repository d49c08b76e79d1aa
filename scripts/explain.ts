/**
 * npm run explain -- <files, globs or trusted-documents manifests…> [--max-share 0.5] [--max-calls N] [--variables JSON|file]
 *
 * For a frontend's CI: what each GraphQL operation of its documents costs the inventory API before
 * it ships. Per operation it prints the gateway's own estimate (the one admission and the rate-limit
 * claim use: src/schema/cost.ts, with the gateway's settings from the environment) per rate-limit
 * category, its share of a tenant's minute, and the field that drives it. Exits 1 naming every
 * operation over --max-share (of any category's minute) or --max-calls (in all), and every
 * operation the gateway would refuse outright (over MAX_UPSTREAM_CALLS or a whole window).
 *
 * Variables an operation declares are unknown here: give values with --variables (by name, for
 * every operation); an unset page size counts as the gateway's default page size.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Kind, parse, type DocumentNode } from 'graphql';
import { loadConfig } from '../src/config.js';
import { RATE_CATEGORIES } from '../src/core/routes.js';
import { createLogger } from '../src/logger.js';
import { estimateUpstreamCalls } from '../src/schema/cost.js';
import { planOf, type CostPlan } from '../src/schema/cost-plan.js';
import { CostTrace } from '../src/schema/cost-trace.js';
import { costRefusal, costSettingsOf } from '../src/server/limits/limits.js';
import { RateBudget } from '../src/upstream/rate-budget.js';

const USAGE = 'usage: npm run explain -- <documents (.graphql files, globs, manifest .json)…> [--max-share 0.5] [--max-calls N] [--variables JSON|file]';

function fail(message: string): never {
  console.error(`explain: ${message}`);
  process.exit(2);
}

interface Options { inputs: string[]; maxShare: number | null; maxCalls: number | null; variables: Record<string, unknown> }

function options(argv: string[]): Options {
  const out: Options = { inputs: [], maxShare: null, maxCalls: null, variables: {} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => inline ?? argv[++i] ?? fail(`${flag} needs a value\n${USAGE}`);
    if (flag === '--max-share') {
      out.maxShare = Number(value());
      if (!(out.maxShare > 0)) fail('--max-share must be a number above 0 (0.5: half a minute of a category)');
    } else if (flag === '--max-calls') {
      out.maxCalls = Number(value());
      if (!Number.isInteger(out.maxCalls) || out.maxCalls < 0) fail('--max-calls must be a whole number');
    } else if (flag === '--variables') {
      const raw = value();
      try {
        out.variables = JSON.parse(existsSync(raw) ? readFileSync(raw, 'utf8') : raw) as Record<string, unknown>;
      } catch {
        fail('--variables must be JSON or a JSON file');
      }
    } else if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (flag.startsWith('--')) {
      fail(`unknown option ${flag}\n${USAGE}`);
    } else {
      out.inputs.push(arg);
    }
  }
  if (out.inputs.length === 0) fail(USAGE);
  return out;
}

/** Files matching a glob (`*`, `**`, `?`), walked from the part before the first wildcard. */
function expand(pattern: string): string[] {
  if (!/[*?]/.test(pattern)) return [pattern];
  const parts = pattern.split('/');
  const fixed = parts.findIndex((p) => /[*?]/.test(p));
  const base = parts.slice(0, fixed).join('/') || '.';
  const source = parts.slice(fixed).join('/').replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*\*\//g, '\u0000').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]').replaceAll('\u0000', '(?:.*/)?');
  const matcher = new RegExp(`^${source}$`);
  const found: string[] = [];
  const walk = (dir: string, rel: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === '.git') continue;
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path.join(dir, entry.name), relPath);
      else if (matcher.test(relPath)) found.push(base === '.' ? relPath : `${base}/${relPath}`);
    }
  };
  walk(base, '');
  return found.sort();
}

/** The documents of an input: a GraphQL file, or each document of a trusted-documents manifest ({ "<hash>": "<document>" }). */
function documentsOf(file: string): { source: string; text: string }[] {
  if (!existsSync(file) || !statSync(file).isFile()) fail(`no such file: ${file}`);
  const text = readFileSync(file, 'utf8');
  if (!file.endsWith('.json')) return [{ source: file, text }];
  const manifest = JSON.parse(text) as Record<string, unknown>;
  return Object.entries(manifest).filter((e): e is [string, string] => typeof e[1] === 'string').map(([hash, document]) => ({ source: `${file}#${hash.slice(0, 20)}`, text: document }));
}

const opts = options(process.argv.slice(2));
// The gateway's cost settings as the deployment sets them (page sizes, limits), nothing else.
const COST_SETTINGS = ['DEFAULT_PAGE_SIZE', 'MAX_PAGE_SIZE', 'MAX_AVAILABILITY_WINDOW_DAYS', 'MAX_UPSTREAM_CALLS', 'UPSTREAM_RATE_LIMITS'];
const config = loadConfig(Object.fromEntries(COST_SETTINGS.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]])));
const budget = new RateBudget({ settings: config.rateLimits, logger: createLogger('silent') });
const settings = costSettingsOf(config);

interface Row { source: string; name: string; plan: CostPlan; share: number }
const rows: Row[] = [];
const files = [...new Set(opts.inputs.flatMap(expand))];
if (files.length === 0) fail(`no documents match ${opts.inputs.join(' ')}`);
for (const file of files) {
  for (const { source, text } of documentsOf(file)) {
    let document: DocumentNode;
    try {
      document = parse(text);
    } catch (error) {
      fail(`${source}: ${(error as Error).message}`);
    }
    for (const operation of document.definitions) {
      if (operation.kind !== Kind.OPERATION_DEFINITION) continue;
      const name = operation.name?.value ?? '(anonymous)';
      const trace = new CostTrace();
      const estimate = estimateUpstreamCalls(document, operation.name?.value, opts.variables, settings, trace);
      if (estimate.problems.length > 0) fail(`${source} ${name}: ${estimate.problems.map((p) => p.message).join('; ')}`);
      const plan = planOf({
        operationName: name,
        estimate,
        parts: trace.parts,
        categoryOf: budget.categoryOf,
        // A whole minute of a tenant: what one page view may take of it.
        windowOf: (_tenant, category) => {
          const limit = budget.windowLimit(category);
          return limit === null ? null : { limit, remaining: limit, resetAt: null };
        },
        refusal: costRefusal(estimate, config, budget)?.message ?? null,
        drivers: 1,
      });
      const share = Math.max(0, ...plan.tenants.flatMap((t) => Object.values(t.byCategory).map((c) => c.share ?? 0)));
      rows.push({ source, name, plan, share });
    }
  }
}

const percent = (share: number | null) => (share === null ? '' : ` (${share > 0 && share < 0.01 ? '<1' : Math.round(share * 100)}%)`);
const table = rows.map((row) => {
  const cells = RATE_CATEGORIES.map((category) => {
    const counts = row.plan.tenants.map((t) => t.byCategory[category]).filter((c) => c !== undefined);
    if (counts.length === 0) return '-';
    const worst = counts.reduce((a, b) => ((b.share ?? 0) > (a.share ?? 0) ? b : a));
    return `${counts.reduce((sum, c) => sum + c.calls, 0)}${percent(worst.share)}`;
  });
  return [`${row.source} ${row.name}`, String(row.plan.calls), ...cells, row.plan.verdict, row.plan.drivers[0] ? `${row.plan.drivers[0].path}: ${row.plan.drivers[0].why}` : ''];
});
const header = ['operation', 'calls', ...RATE_CATEGORIES.map((c) => `${c} (of a minute)`), 'verdict', 'driven by'];
const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
for (const line of [header, ...table]) console.log(line.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd());

const over: string[] = [];
for (const row of rows) {
  const what = `${row.source} ${row.name}`;
  if (row.plan.verdict === 'refused') over.push(`${what}: the gateway would refuse it: ${row.plan.reason}`);
  if (opts.maxShare !== null && row.share > opts.maxShare) over.push(`${what}: ${Math.round(row.share * 100)}% of a tenant's minute, over --max-share ${opts.maxShare}`);
  if (opts.maxCalls !== null && row.plan.calls > opts.maxCalls) over.push(`${what}: ${row.plan.calls} upstream calls, over --max-calls ${opts.maxCalls}`);
}
if (over.length > 0) {
  console.error(`\nexplain: ${over.length} over the threshold:`);
  for (const line of over) console.error(`  ${line}`);
  process.exit(1);
}
console.log(`\nexplain: ${rows.length} operations, none over the threshold.`);
