/**
 * gRPC nodes end to end (docs/async.md "gRPC"): a real worker on a real Temporal server calling
 * the loopback greeter (test/helpers/grpc-server.ts, test/fixtures/grpc/greeter.proto). Unary
 * with metadata, headers and trailers; a server stream, whole and stopped at `maxMessages`; a
 * deadline exceeded; a non-OK status asserted (passing when expected, failing when not); the
 * address policy refusing the Temporal frontend's gRPC port; a `.proto` that does not parse or
 * lacks the service or method refused at save time; and a short performance run counting each
 * call as a request under the node's name.
 */
import fs from 'node:fs';
import { expect } from 'chai';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { GREETER_PROTO_PATH, startGreeterServer, type GreeterServer } from '../../helpers/grpc-server';

const proto = fs.readFileSync(GREETER_PROTO_PATH, 'utf8');
const service = 'assay.greeter.Greeter';
const grpcNode = (id: string, method: string, extra: Record<string, unknown> = {}) => ({
  type: 'grpc',
  id,
  target: '{{greeter}}',
  proto,
  service,
  method,
  ...extra,
});
const status = (expected: number) => ({ target: 'response.status', operator: 'equals', expected });

describe('gRPC nodes', function () {
  this.timeout(120_000);
  let app: TestApp;
  let greeter: GreeterServer;
  /** The functional run's test case results, by name. */
  let cases: Record<string, any>;

  before(async () => {
    [app, greeter] = await Promise.all([startTestApp({ worker: true }), startGreeterServer()]);
    await app.request('POST', '/v1/environments', {
      name: 'local',
      variables: { greeter: greeter.address, temporal: `grpc://${app.config.temporal.address}` },
    });
    const testCases = [
      {
        name: 'unary',
        flow: [
          grpcNode('hello', 'SayHello', {
            name: 'say hello',
            message: { name: '{{who}}' },
            metadata: { 'x-request-id': 'req-{{who}}' },
            assertions: [
              status(0),
              { target: 'response.statusName', operator: 'equals', expected: 'OK' },
              { target: 'response.body.message', operator: 'equals', expected: 'Hello, Ada!' },
              { target: 'response.body.mood', operator: 'equals', expected: 'CHEERFUL' },
              { target: 'response.headers."x-request-id"', operator: 'equals', expected: 'req-Ada' },
              { target: 'response.trailers."x-echo"', operator: 'equals', expected: 'req-Ada' },
            ],
          }),
          {
            type: 'assert',
            id: 'later',
            assertions: [
              { target: 'nodes.hello.response.body.message', operator: 'equals', expected: 'Hello, Ada!' },
              { target: 'nodes.hello.trailers."x-echo"', operator: 'equals', expected: 'req-Ada' },
            ],
          },
        ],
      },
      {
        name: 'stream',
        flow: [
          grpcNode('all', 'StreamHellos', {
            message: { name: 'Ada', count: 3 },
            assertions: [
              status(0),
              { target: 'response.count', operator: 'equals', expected: 3 },
              { target: 'response.body[2].message', operator: 'equals', expected: 'Hello 3, Ada!' },
              { target: 'response.body.index', operator: 'equals', expected: [1, 2, 3] },
            ],
          }),
          grpcNode('endless', 'StreamHellos', {
            message: { name: 'Ada', count: 0, interval_ms: 5 },
            maxMessages: 4,
            assertions: [
              { target: 'response.count', operator: 'equals', expected: 4 },
              { target: 'response.stoppedBy', operator: 'equals', expected: 'maxMessages' },
              { target: 'response.statusName', operator: 'equals', expected: 'CANCELLED' },
            ],
          }),
        ],
      },
      {
        name: 'deadline',
        flow: [
          grpcNode('slow', 'SlowHello', {
            message: { name: 'Ada', delay_ms: 3000 },
            deadlineMs: 200,
            assertions: [
              status(4),
              { target: 'response.statusName', operator: 'equals', expected: 'DEADLINE_EXCEEDED' },
            ],
          }),
        ],
      },
      {
        name: 'not found expected',
        flow: [
          grpcNode('find', 'FindGreeting', {
            message: { name: 'Bob' },
            assertions: [
              status(5),
              { target: 'response.details', operator: 'equals', expected: 'no greeting for Bob' },
            ],
          }),
        ],
      },
      {
        name: 'not found unexpected',
        flow: [grpcNode('find', 'FindGreeting', { message: { name: 'Bob' }, assertions: [status(0)] })],
      },
      {
        name: 'refused',
        flow: [grpcNode('temporal', 'SayHello', { target: '{{temporal}}', message: { name: 'x' } })],
      },
      {
        name: 'bad message',
        flow: [grpcNode('typo', 'SayHello', { message: { nmae: 'Ada' } })],
      },
    ];
    for (const tc of testCases) {
      const res = await app.request('POST', '/v1/test-cases', { ...tc, folder: 'grpc' });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    await app.request('POST', '/v1/runners', { name: 'grpc', folder: 'grpc', order: 'createdAt' });
    const started = await app.request('POST', '/v1/runs', {
      runner: 'grpc',
      environment: 'local',
      variables: { who: 'Ada' },
    });
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    await waitForRun(app, started.body.runId, 60_000);
    const results = (await app.request('GET', `/v1/runs/${started.body.runId}/results`)).body;
    cases = Object.fromEntries((results.details.testCases as any[]).map((c) => [c.name, c]));
  });
  after(async () => {
    await greeter?.close();
    await app?.stop();
  });

  it('calls a unary method with templated metadata and message; headers, trailers and body asserted, later nodes see them', () => {
    const c = cases.unary;
    expect(c.status, JSON.stringify(c.failures)).to.equal('passed');
    expect(c.assertions).to.equal(8);
    const node = c.nodes[0];
    expect(node).to.include({ type: 'grpc', status: 'passed', name: 'say hello' });
    expect(node.grpc).to.include({ code: 0, status: 'OK', messages: 1 });
    expect(node.request.url).to.equal(`grpc://${greeter.address}/${service}/SayHello`);
    const call = greeter.calls.find((x) => x.method === 'SayHello' && x.request.name === 'Ada');
    expect(call?.metadata['x-request-id']).to.equal('req-Ada');
  });

  it('receives a server stream whole, and stops an endless one at maxMessages', () => {
    const c = cases.stream;
    expect(c.status, JSON.stringify(c.failures)).to.equal('passed');
    expect(c.nodes[0].grpc).to.include({ code: 0, messages: 3 });
    expect(c.nodes[1].grpc).to.include({ code: 1, status: 'CANCELLED', messages: 4 });
  });

  it('reports a deadline exceeded as the status DEADLINE_EXCEEDED, within the deadline', () => {
    const c = cases.deadline;
    expect(c.status, JSON.stringify(c.failures)).to.equal('passed');
    expect(c.nodes[0].grpc).to.include({ code: 4, status: 'DEADLINE_EXCEEDED' });
    expect(c.nodes[0].grpc.timeMs).to.be.within(150, 2000);
  });

  it('passes a non-OK status its assertions expect, and fails one they do not, naming expected and actual', () => {
    expect(cases['not found expected'].status).to.equal('passed');
    expect(cases['not found expected'].nodes[0].grpc).to.include({ code: 5, details: 'no greeting for Bob' });
    const c = cases['not found unexpected'];
    expect(c.status).to.equal('failed');
    expect(c.failures[0]).to.include({ node: 'find', operator: 'equals', expected: 0, actual: 5 });
  });

  it('refuses a target the address policy refuses (the Temporal frontend) with ADDRESS_NOT_ALLOWED; nothing called', () => {
    const c = cases.refused;
    expect(c.status).to.equal('failed');
    expect(c.nodes[0].error).to.contain('ADDRESS_NOT_ALLOWED').and.to.contain('Temporal frontend');
    expect(c.nodes[0].grpc).to.equal(undefined);
  });

  it('fails a node whose message has a field the request type lacks, naming it and the fields', () => {
    const c = cases['bad message'];
    expect(c.status).to.equal('failed');
    expect(c.nodes[0].error).to.contain('has no field "nmae"').and.to.contain('its fields: name');
    expect(greeter.calls.filter((x) => x.request.name === undefined && x.method === 'SayHello')).to.have.length(0);
  });

  it('refuses at save time a proto that does not parse, and a service or method it does not declare', async () => {
    const save = (node: Record<string, unknown>) =>
      app.request('POST', '/v1/test-cases', { name: `bad ${Math.random()}`, flow: [node] });
    const unparsable = await save(grpcNode('n', 'SayHello', { proto: 'syntax = "proto3";\nservice Greeter {' }));
    expect(unparsable.status).to.equal(400);
    expect(unparsable.body.errors[0].field).to.equal('flow[0].proto');
    expect(unparsable.body.errors[0].detail).to.contain('does not parse');
    const noService = await save({ ...grpcNode('n', 'SayHello'), service: 'Greeter' });
    expect(noService.status).to.equal(400);
    expect(noService.body.errors[0].field).to.equal('flow[0].service');
    expect(noService.body.errors[0].detail).to.contain('assay.greeter.Greeter');
    const noMethod = await save(grpcNode('n', 'SayGoodbye'));
    expect(noMethod.status).to.equal(400);
    expect(noMethod.body.errors[0].field).to.equal('flow[0].method');
    expect(noMethod.body.errors[0].detail).to.contain('SayHello, StreamHellos');
    const missingImport = await save(grpcNode('n', 'SayHello', { proto: `import "common.proto";\n${proto}` }));
    expect(missingImport.status).to.equal(400);
    expect(missingImport.body.errors[0].detail).to.contain('"common.proto"');
  });

  it('counts each call of a performance run as a request under the node name; an expected non-OK status is no failure', async () => {
    const tc = await app.request('POST', '/v1/test-cases', {
      name: 'grpc load',
      folder: 'grpc-load',
      flow: [
        grpcNode('hello', 'SayHello', { name: 'say hello', message: { name: 'VU {{__VU}}' }, assertions: [status(0)] }),
        grpcNode('find', 'FindGreeting', { message: { name: 'load' }, assertions: [status(5)] }),
      ],
    });
    expect(tc.status, JSON.stringify(tc.body)).to.equal(201);
    await app.request('POST', '/v1/runners', { name: 'grpc-load', folder: 'grpc-load' });
    const before = greeter.calls.length;
    const started = await app.request('POST', '/v1/runs', {
      runner: 'grpc-load',
      environment: 'local',
      timeout: 120,
      performance: { executor: 'constant-vus', vus: 2, duration: '1s', thresholds: { http_req_failed: ['rate==0'] } },
    });
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    const run = await waitForRun(app, started.body.runId, 60_000);
    expect(run.status).to.equal('completed');
    const doc = (await app.request('GET', `/v1/runs/${started.body.runId}/results`)).body;
    const p = doc.performance;
    expect(doc.result, JSON.stringify(p.thresholds)).to.equal('passed');
    const byName = Object.fromEntries((p.byName as any[]).map((n) => [n.name, n]));
    expect(Object.keys(byName).sort()).to.deep.equal(['find', 'say hello']);
    const calls = greeter.calls.slice(before);
    expect(byName['say hello'].requests).to.equal(calls.filter((c) => c.method === 'SayHello').length);
    expect(byName.find.requests).to.equal(calls.filter((c) => c.method === 'FindGreeting').length);
    expect(p.requests).to.equal(calls.length).and.to.be.greaterThan(10);
    expect(p.errorRate).to.equal(0);
    expect(p.checks.rate).to.equal(1);
  });
});
