/**
 * `make bench`: a performance run with an OAuth 2.0 auth profile against the same run with a static
 * bearer header (docs/benchmarks.md "OAuth 2.0 profiles under load").
 *
 * A loopback target that accepts only the tokens it knows (an `Authorization: Bearer` check per
 * request), a loopback OAuth 2.0 server (oauth2-mock-server, client credentials, one-hour tokens)
 * counting its token requests, and one runner of one GET test case run as a `constant-vus`
 * performance run of BENCH_OAUTH_VUS (50) virtual users for BENCH_OAUTH_DURATION (10s), alternately
 * with the `oauth2` profile and with `Authorization: Bearer {{staticToken}}` written on the node
 * (a token of the same server, as long as the profile's, so only the way the header is made differs),
 * BENCH_REPEAT (2) times each after a warm-up run of each. Prints a Markdown table: token requests made, requests per second
 * (median), p95, and the OAuth 2.0 run's rate against the static one's.
 *
 * Uses the Temporal server in TEMPORAL_ADDRESS or starts a dev server; the store in DATABASE_URL or
 * an embedded SQLite file. Everything binds to loopback.
 */
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { Events, OAuth2Server } from 'oauth2-mock-server';
import { startLocalStack } from '../bin/local-stack';

const VUS = Number(process.env.BENCH_OAUTH_VUS ?? 50);
const DURATION = process.env.BENCH_OAUTH_DURATION ?? '10s';
const REPEAT = Number(process.env.BENCH_REPEAT ?? 2);

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function main(): Promise<void> {
  const oauth = new OAuth2Server();
  await oauth.issuer.keys.generate('RS256');
  await oauth.start(0, '127.0.0.1');
  // The static header carries a token of the same server (a JWT of the same size as the profile's),
  // so that the two runs differ only in how the header is made.
  const STATIC_TOKEN = await oauth.issuer.buildToken();
  const issued = new Set<string>([STATIC_TOKEN]);
  let tokenRequests = 0;
  oauth.service.on(Events.BeforeResponse, (response: { body: Record<string, unknown> }) => {
    tokenRequests += 1;
    if (typeof response.body.access_token === 'string') issued.add(response.body.access_token);
  });
  const target = http.createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    const ok = auth.startsWith('Bearer ') && issued.has(auth.slice(7));
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    res.end(ok ? '{"ok":true}' : '{"ok":false}');
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  const stack = await startLocalStack({ ASSAY_LOG_LEVEL: 'error' });
  try {
    await stack.call('POST', '/v1/environments', {
      name: 'bench',
      variables: {
        base: targetUrl,
        authUrl: oauth.issuer.url!,
        clientSecret: { value: 'bench-client-secret', secret: true },
        staticToken: { value: STATIC_TOKEN, secret: true },
      },
    });
    await stack.call('POST', '/v1/auth-profiles', {
      name: 'bench-oauth',
      type: 'oauth2',
      config: {
        grant: 'client_credentials',
        tokenUrl: '{{authUrl}}/token',
        clientId: 'bench',
        clientSecret: '{{clientSecret}}',
        scopes: ['read'],
      },
    });
    const check = [{ target: 'response.status', operator: 'equals', expected: 200 }];
    await stack.call('POST', '/v1/test-cases', {
      name: 'oauth',
      folder: 'oauth',
      authProfile: 'bench-oauth',
      flow: [{ type: 'api', id: 'get', request: { method: 'GET', url: '{{base}}/items' }, assertions: check }],
    });
    await stack.call('POST', '/v1/test-cases', {
      name: 'static',
      folder: 'static',
      flow: [
        {
          type: 'api',
          id: 'get',
          request: { method: 'GET', url: '{{base}}/items', headers: { Authorization: 'Bearer {{staticToken}}' } },
          assertions: check,
        },
      ],
    });
    await stack.call('POST', '/v1/runners', { name: 'oauth', folder: 'oauth' });
    await stack.call('POST', '/v1/runners', { name: 'static', folder: 'static' });

    const figures: Record<'oauth' | 'static', { rps: number[]; p95: number[]; failed: number; tokens: number }> = {
      oauth: { rps: [], p95: [], failed: 0, tokens: 0 },
      static: { rps: [], p95: [], failed: 0, tokens: 0 },
    };
    // Round 0 warms the process up (JIT, connections; the OAuth 2.0 run's one token request) and is
    // not counted in the rates; the order alternates so neither kind always runs first.
    for (let round = 0; round <= REPEAT; round++) {
      const order = round % 2 ? (['static', 'oauth'] as const) : (['oauth', 'static'] as const);
      for (const runner of order) {
        const before = tokenRequests;
        const { runId } = await stack.call<{ runId: string }>('POST', '/v1/runs', {
          runner,
          environment: 'bench',
          performance: { executor: 'constant-vus', vus: VUS, duration: DURATION },
        });
        for (;;) {
          const run = await stack.call<{ status: string }>('GET', `/v1/runs/${runId}`);
          if (run.status !== 'queued' && run.status !== 'running') break;
          await new Promise((r) => setTimeout(r, 250));
        }
        const perf = (
          await stack.call<{
            performance: { requestsPerSecond: number; p95ResponseTime: number; failedRequests: number };
          }>('GET', `/v1/runs/${runId}/results`)
        ).performance;
        if (round > 0) {
          figures[runner].rps.push(perf.requestsPerSecond);
          figures[runner].p95.push(perf.p95ResponseTime);
        }
        figures[runner].failed += perf.failedRequests;
        figures[runner].tokens += tokenRequests - before;
        console.error(
          `${runner} #${round}${round ? '' : ' (warm-up)'}: ${perf.requestsPerSecond.toFixed(0)} req/s, p95 ${perf.p95ResponseTime} ms, ${tokenRequests - before} token requests, ${perf.failedRequests} failed`,
        );
      }
    }
    const oauthRps = median(figures.oauth.rps);
    const staticRps = median(figures.static.rps);
    console.log(
      `\n${VUS} VUs × ${DURATION}, constant-vus, ${REPEAT} measured runs each (alternating, after one warm-up run each), ${os.cpus().length} cores, ${new Date().toISOString().slice(0, 10)}\n`,
    );
    console.log(
      '| request auth | token requests (all runs) | requests/s (median) | p95 ms (median) | failed requests |',
    );
    console.log('|---|---|---|---|---|');
    console.log(
      `| OAuth 2.0 profile (client credentials) | ${figures.oauth.tokens} | ${oauthRps.toFixed(0)} | ${median(figures.oauth.p95).toFixed(1)} | ${figures.oauth.failed} |`,
    );
    console.log(
      `| static \`Authorization: Bearer {{staticToken}}\` | — | ${staticRps.toFixed(0)} | ${median(figures.static.p95).toFixed(1)} | ${figures.static.failed} |`,
    );
    console.log(`\nOAuth 2.0 / static: ${((oauthRps / staticRps) * 100).toFixed(1)} % of the requests per second.`);
  } finally {
    await stack.stop();
    target.closeAllConnections();
    target.close();
    await oauth.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
