/**
 * The demo (`make demo`): go-httpbin on loopback, a suite of 13 test cases loaded through the REST
 * API (status codes, JSON bodies, headers, schemas, redirects, auth, timing, and one failure on
 * purpose), one run through Temporal, and its results printed as they come back from the API.
 */
import { spawn } from 'node:child_process';
import { runAndWait, startLocalStack } from '../bin/local-stack';
import { freePort } from '../src/net/free-port';

type Assertion = { target: string; operator: string; expected?: unknown; name?: string };
const api = (method: string, url: string, assertions: Assertion[], extra: Record<string, unknown> = {}) => ({
  type: 'api',
  request: { method, url, ...extra },
  assertions,
});
const status = (code: number): Assertion => ({ target: 'response.status', operator: 'equals', expected: code });

/** The demo suite: name, tags, flow. */
const SUITE: Array<{ name: string; tags: string[]; flow: unknown[] }> = [
  {
    name: 'GET echoes query arguments',
    tags: ['smoke'],
    flow: [
      api('GET', '{{base}}/get?team={{team}}', [
        status(200),
        { target: 'response.body.args.team[0]', operator: 'equals', expected: 'assay' },
      ]),
    ],
  },
  {
    name: 'POST echoes a JSON body',
    tags: ['smoke'],
    flow: [
      api(
        'POST',
        '{{base}}/post',
        [
          status(200),
          { target: 'response.body.json.user', operator: 'equals', expected: 'ada' },
          { target: 'response.body.json.count', operator: 'equals', expected: 3 },
        ],
        { body: { user: '{{user}}', count: 3 } },
      ),
    ],
  },
  { name: 'a 404 that is expected passes', tags: ['status'], flow: [api('GET', '{{base}}/status/404', [status(404)])] },
  {
    name: 'a 5xx within range passes',
    tags: ['status'],
    flow: [
      api('GET', '{{base}}/status/503', [{ target: 'response.status', operator: 'inRange', expected: [500, 599] }]),
    ],
  },
  {
    name: 'request headers reach the server',
    tags: ['headers'],
    flow: [
      api(
        'GET',
        '{{base}}/headers',
        [status(200), { target: 'response.body.headers."X-Assay-Demo"', operator: 'contains', expected: 'yes' }],
        { headers: { 'X-Assay-Demo': 'yes' } },
      ),
    ],
  },
  {
    name: 'response headers can be asserted',
    tags: ['headers'],
    flow: [
      api('GET', '{{base}}/response-headers?X-Release=2026.11', [
        { target: 'response.headers."x-release"', operator: 'equals', expected: '2026.11' },
      ]),
    ],
  },
  {
    name: 'JSON document matches its schema',
    tags: ['schema'],
    flow: [
      api('GET', '{{base}}/json', [
        {
          target: 'response.body',
          operator: 'matchesSchema',
          expected: {
            type: 'object',
            required: ['slideshow'],
            properties: {
              slideshow: {
                type: 'object',
                required: ['title', 'slides'],
                properties: { slides: { type: 'array', minItems: 1 } },
              },
            },
          },
        },
        { target: '$count(response.body.slideshow.slides)', operator: 'greaterThanOrEqual', expected: 2 },
      ]),
    ],
  },
  {
    name: 'a UUID looks like one',
    tags: ['formats'],
    flow: [
      api('GET', '{{base}}/uuid', [
        {
          target: 'response.body.uuid',
          operator: 'matches',
          expected: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
        },
      ]),
    ],
  },
  {
    name: 'redirects are followed',
    tags: ['smoke'],
    flow: [
      api('GET', '{{base}}/redirect/2', [
        status(200),
        { target: 'response.body.url', operator: 'contains', expected: '/get' },
      ]),
    ],
  },
  {
    name: 'basic auth succeeds with the right credentials',
    tags: ['auth'],
    flow: [
      api(
        'GET',
        '{{base}}/basic-auth/ada/lovelace',
        [status(200), { target: 'response.body.authorized', operator: 'equals', expected: true }],
        { headers: { Authorization: 'Basic YWRhOmxvdmVsYWNl' } },
      ),
    ],
  },
  {
    name: 'bearer auth takes the token from the environment',
    tags: ['auth'],
    flow: [
      api(
        'GET',
        '{{base}}/bearer',
        [status(200), { target: 'response.body.token', operator: 'equals', expected: 'demo-token' }],
        { headers: { Authorization: 'Bearer {{token}}' } },
      ),
    ],
  },
  {
    name: 'a slow endpoint is measured',
    tags: ['timing'],
    flow: [
      api('GET', '{{base}}/delay/1', [
        status(200),
        { target: 'response.time', operator: 'greaterThanOrEqual', expected: 900 },
      ]),
    ],
  },
  {
    name: 'deliberate failure: wrong status expected',
    tags: ['smoke'],
    flow: [
      api('GET', '{{base}}/status/418', [
        { name: 'status is 200', target: 'response.status', operator: 'equals', expected: 200 },
      ]),
    ],
  },
];

async function main(): Promise<void> {
  const httpbinBinary = process.env.HTTPBIN;
  if (!httpbinBinary) throw new Error('HTTPBIN (path of the go-httpbin binary) is not set; run `make demo`');
  const port = await freePort();
  const httpbin = spawn(httpbinBinary, ['-host', '127.0.0.1', '-port', String(port)], { stdio: 'ignore' });
  const base = `http://127.0.0.1:${port}`;
  const stack = await startLocalStack();
  try {
    await waitForHttp(base);
    await stack.call('POST', '/v1/environments', {
      name: 'demo',
      variables: { base, team: 'assay', user: 'ada', token: 'demo-token' },
    });
    for (const tc of SUITE) await stack.call('POST', '/v1/test-cases', { ...tc, folder: 'httpbin' });
    await stack.call('POST', '/v1/runners', { name: 'httpbin-demo', folder: 'httpbin' });

    const started = Date.now();
    const run = await runAndWait<{ result: string; summary: Record<string, number>; duration: number }>(
      stack,
      { runner: 'httpbin-demo', environment: 'demo' },
      200,
    );
    const results = await stack.call<{
      details: {
        testCases: Array<{
          name: string;
          status: string;
          duration: number;
          assertions: number;
          failures: Array<{ message: string; assertion?: string }>;
        }>;
      };
    }>('GET', `/v1/runs/${run.runId}/results`);
    const lines = [
      `Run ${run.runId}: ${run.status}, result ${run.result} in ${run.duration} ms (${Date.now() - started} ms from POST to results)`,
      `Summary: ${JSON.stringify(run.summary)}`,
      '',
      ...results.details.testCases.map((c) => {
        const mark = c.status === 'passed' ? 'PASS' : c.status === 'failed' ? 'FAIL' : 'SKIP';
        const why = c.failures.length
          ? `  <- ${c.failures.map((f) => `${f.assertion ?? ''}: ${f.message}`).join('; ')}`
          : '';
        return `  ${mark}  ${c.name.padEnd(50)} ${String(Math.round(c.duration)).padStart(5)} ms  ${c.assertions} assertion(s)${why}`;
      }),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await stack.stop();
    httpbin.kill();
  }
}

async function waitForHttp(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${url}/get`)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`go-httpbin did not answer at ${url}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
