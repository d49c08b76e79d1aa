/** Reads samples out of Prometheus text exposition: sum of a metric's samples grouped by one label. */
export function sumBy(text: string, metric: string, label: string, where: Record<string, string> = {}): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`) && !line.startsWith(`${metric} `)) continue;
    const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(where).some(([k, v]) => labels[k] !== v)) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    const key = labels[label] ?? '';
    out[key] = (out[key] ?? 0) + value;
  }
  return out;
}
