/**
 * `make bench`: what the payload codec costs per payload (docs/benchmarks.md "Payload codec"), in
 * process, no server: encode then decode (the worker's round trip) of a typical API node result
 * (about 4 KB of JSON: the request as sent, the response's headers and a 2 KB body, assertions):
 *
 * - `ring key`: encrypted with the ring key itself, as every payload was before per-workspace keys
 *   (and as a payload of no run still is);
 * - `workspace key, no secret`: the run's workspace's derived key, a run without secret values;
 * - `workspace key, secrets absent`: a run with three secret values, none in this payload (the
 *   prefilter finds none: the common case);
 * - `workspace key, secrets present`: the three values in the URL, a header and the body (sealed,
 *   then opened again on decode).
 *
 * Prints a Markdown table: µs per payload (median of ROUNDS rounds of N payloads each) and the
 * encoded size. BENCH_CODEC_PAYLOADS sets N.
 */
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { EncryptionCodec, type PayloadScopes } from '../src/temporal/codec';
import { KeyRing, parseSecretKeys } from '../src/secrets/keyring';
import { HistorySealer, NO_HISTORY_SECRETS } from '../src/secrets/history-seal';

const N = Number(process.env.BENCH_CODEC_PAYLOADS ?? 5000);
const ROUNDS = 5;
const SECRETS = ['s3cr3t-token-0123456789', 'client-secret-abcdef', 'hunter2-password'];

function result(withSecrets: boolean): unknown {
  const token = withSecrets ? SECRETS[0] : 'public-value-0123456789';
  return {
    nodeId: 'get-user',
    status: 'passed',
    request: {
      method: 'POST',
      url: `https://api.example.com/v1/users/42?token=${token}`,
      headers: { authorization: `Bearer ${withSecrets ? SECRETS[1] : 'x'}`, 'content-type': 'application/json' },
      body: JSON.stringify({ password: withSecrets ? SECRETS[2] : 'nothing', name: 'Ann' }),
    },
    response: {
      status: 200,
      headers: { 'content-type': 'application/json', date: new Date(0).toUTCString(), 'x-request-id': 'r'.repeat(36) },
      body: { id: 42, items: Array.from({ length: 40 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['a', 'b'] })) },
      durationMs: 12,
    },
    assertions: Array.from({ length: 5 }, (_, i) => ({
      target: 'response.status',
      operator: 'equals',
      expected: 200,
      actual: 200,
      passed: true,
      i,
    })),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(
  codec: EncryptionCodec,
  payload: Payload,
  workflowId: string,
): Promise<{ us: number; bytes: number }> {
  const context = { type: 'workflow' as const, namespace: 'default', workflowId };
  const times: number[] = [];
  let bytes = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < N; i++) {
      const [encoded] = await codec.encode([payload], context);
      bytes = encoded!.data!.length;
      await codec.decode([encoded!]);
    }
    times.push(Number(process.hrtime.bigint() - start) / 1000 / N);
  }
  return { us: median(times), bytes };
}

async function main(): Promise<void> {
  const ring = new KeyRing(parseSecretKeys(`k1:${Buffer.alloc(32, 9).toString('base64')}`));
  // As src/temporal/payload-scopes.ts keeps them: made once per run.
  const plainRun = { workspaceId: 'ws_bench', sealer: NO_HISTORY_SECRETS };
  const secretRun = { workspaceId: 'ws_bench', sealer: new HistorySealer(SECRETS) };
  const scopes: PayloadScopes = {
    scopeOf: async (workflowId) =>
      workflowId === 'run-plain' ? plainRun : workflowId === 'run-secret' ? secretRun : undefined,
  };
  const codec = new EncryptionCodec(ring, scopes);
  const plain = defaultPayloadConverter.toPayload(result(false));
  const secret = defaultPayloadConverter.toPayload(result(true));
  const rows: Array<[string, { us: number; bytes: number }]> = [
    ['ring key (before per-workspace keys)', await measure(codec, plain, 'no-run')],
    ['workspace key, no secret', await measure(codec, plain, 'run-plain')],
    ['workspace key, secrets absent from the payload', await measure(codec, plain, 'run-secret')],
    ['workspace key, 3 secrets present (sealed, opened)', await measure(codec, secret, 'run-secret')],
  ];
  console.log(
    `\nPayload codec: encode + decode of one ${plain.data!.length}-byte JSON payload, median of ${ROUNDS} × ${N}\n`,
  );
  console.log('| payload | µs per payload | encoded bytes |');
  console.log('|---|---:|---:|');
  for (const [name, r] of rows) console.log(`| ${name} | ${r.us.toFixed(1)} | ${r.bytes} |`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
