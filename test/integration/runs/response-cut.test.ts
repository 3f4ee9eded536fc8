/**
 * A 100 MB response is cut cleanly at maxResponseBytes (docs/spec-choices.md "Address policy and response cut"): the API node keeps the
 * first 256 KiB (the default), stops reading there (the body stream is destroyed, the connection
 * closes), records the response with `truncated: true` and the bytes received so far, and the
 * server, which streams with backpressure and stops as soon as the client closes, never gets to
 * write the 100 MB.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';

const TOTAL = 100 * 1024 * 1024;
const CHUNK = 64 * 1024;

/** Streams up to 100 MB of 'x' per request (bounded: TOTAL / CHUNK writes), stopping when the client goes. */
async function startStreamer(): Promise<{
  url: string;
  written: number[];
  closedEarly: boolean[];
  close(): Promise<void>;
}> {
  const written: number[] = [];
  const closedEarly: boolean[] = [];
  const chunk = Buffer.alloc(CHUNK, 'x');
  const server = http.createServer(async (_req, res) => {
    const index = written.push(0) - 1;
    closedEarly[index] = false;
    let gone = false;
    res.on('close', () => {
      gone = true;
      closedEarly[index] = !res.writableFinished;
    });
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(TOTAL) });
    for (let i = 0; i < TOTAL / CHUNK && !gone; i++) {
      written[index]! += CHUNK;
      if (!res.write(chunk)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
    }
    if (!gone) res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    written,
    closedEarly,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('response cut at maxResponseBytes', function () {
  this.timeout(120_000);
  let app: TestApp;
  let streamer: Awaited<ReturnType<typeof startStreamer>>;

  before(async () => {
    [app, streamer] = await Promise.all([startTestApp({ worker: true }), startStreamer()]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: streamer.url } });
  });
  after(async () => {
    await app?.stop();
    await streamer?.close();
  });

  it('keeps the first 256 KiB of a 100 MB body, records it as truncated, and stops reading there', async () => {
    const cap = app.config.runs.maxResponseBytes;
    expect(cap).to.equal(256 * 1024);
    const created = await app.request('POST', '/v1/test-cases', {
      name: 'huge',
      folder: 'huge',
      flow: [
        {
          type: 'api',
          id: 'big',
          request: { method: 'GET', url: '{{base}}/100mb' },
          assertions: [
            { target: 'response.status', operator: 'equals', expected: 200 },
            { target: '$length(response.body)', operator: 'equals', expected: cap },
          ],
        },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    await app.request('POST', '/v1/runners', { name: 'huge', folder: 'huge' });
    const { runId } = (await app.request('POST', '/v1/runs', { runner: 'huge', environment: 'local' })).body;
    const run = await waitForRun(app, runId, 90_000);
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    const node = results.details.testCases[0].nodes[0];
    expect(node.error, JSON.stringify(node)).to.equal(undefined);
    expect(node.response, JSON.stringify(node)).to.include({ status: 200, truncated: true });
    // The bytes received until the cut: past the cap, by less than one read.
    expect(node.response.size).to.be.above(cap);
    expect(node.response.size).to.be.below(cap + 1024 * 1024);
    expect(run).to.include({ status: 'completed', result: 'passed' });
    // The client closed the connection: the server stopped far short of 100 MB.
    expect(streamer.written).to.have.length(1);
    expect(streamer.closedEarly).to.deep.equal([true]);
    expect(streamer.written[0]).to.be.below(TOTAL / 4);
  });
});
