/**
 * Compares two V8 heap snapshots (`node dist/bench/heap-diff.js early.heapsnapshot late.heapsnapshot
 * [rows]`): objects by constructor (or node type for non-objects), their count and self size in
 * each, sorted by growth of size. A leak shows as a constructor whose count grows with the run's
 * length; a steady state as counts that stay put. Used with the soak bench's thread snapshots
 * (bench/load-soak.ts, BENCH_SOAK_SNAPSHOTS).
 */
import fs from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Count and self size per constructor name of one snapshot, and the totals. */
export function summarize(file: string): {
  total: { count: number; size: number };
  by: Map<string, { count: number; size: number }>;
} {
  const s = JSON.parse(fs.readFileSync(file, 'utf8')) as Snapshot;
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const by = new Map<string, { count: number; size: number }>();
  const total = { count: 0, size: 0 };
  for (let i = 0; i < s.nodes.length; i += width) {
    const type = types[s.nodes[i + typeAt]!]!;
    const key = type === 'object' || type === 'closure' ? `${type} ${s.strings[s.nodes[i + nameAt]!]}` : `(${type})`;
    const size = s.nodes[i + sizeAt]!;
    const e = by.get(key) ?? { count: 0, size: 0 };
    e.count += 1;
    e.size += size;
    by.set(key, e);
    total.count += 1;
    total.size += size;
  }
  return { total, by };
}

function main(): void {
  const [a, b, rows = '25'] = process.argv.slice(2);
  if (!a || !b) throw new Error('usage: heap-diff.js early.heapsnapshot late.heapsnapshot [rows]');
  const early = summarize(a);
  const late = summarize(b);
  const mb = (n: number) => (n / 1e6).toFixed(2);
  console.log(
    `total: ${early.total.count} objects, ${mb(early.total.size)} MB → ${late.total.count} objects, ${mb(late.total.size)} MB`,
  );
  const keys = new Set([...early.by.keys(), ...late.by.keys()]);
  const diff = [...keys].map((k) => {
    const e = early.by.get(k) ?? { count: 0, size: 0 };
    const l = late.by.get(k) ?? { count: 0, size: 0 };
    return { k, e, l, grow: l.size - e.size };
  });
  diff.sort((x, y) => Math.abs(y.grow) - Math.abs(x.grow));
  console.log('| constructor | count early | count late | MB early | MB late | Δ MB |');
  console.log('|---|---|---|---|---|---|');
  for (const d of diff.slice(0, Number(rows)))
    console.log(
      `| ${d.k.slice(0, 60)} | ${d.e.count} | ${d.l.count} | ${mb(d.e.size)} | ${mb(d.l.size)} | ${mb(d.grow)} |`,
    );
}

if (require.main === module) main();
