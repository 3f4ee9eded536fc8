/**
 * gRPC nodes on a `.proto` nobody here wrote: gRPC's own route guide example
 * (test/fixtures/grpc/route_guide.proto, from github.com/grpc/grpc examples/protos, BSD-3-Clause,
 * its header kept). A loopback RouteGuide server built from it with @grpc/grpc-js answers a unary
 * call (GetFeature) and a server stream (ListFeatures) made by gRPC nodes through the direct port;
 * the save-time check accepts both and refuses the client-streaming and bidirectional methods.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { expect } from 'chai';
import { directPorts } from '../../activities/direct-port';
import { ExpressionPool } from '../../src/expression-pool/pool';
import { AddressPolicy } from '../../src/net/address-policy';
import { Sandbox } from '../../src/sandbox/sandbox';
import type { FlowNode, RunSettings, TestCaseResult } from '../../src/domain/types';
import { FlowInterpreter } from '../../src/flow';
import { protoProblem } from '../../src/grpc/proto';

const PROTO_PATH = path.resolve(__dirname, '../../../test/fixtures/grpc/route_guide.proto');
const PROTO = fs.readFileSync(PROTO_PATH, 'utf8');

const SETTINGS: RunSettings = {
  apiNodeActivity: 'local',
  requestTimeoutMs: 5000,
  maxResponseBytes: 1024 * 1024,
  testCasesPerExecution: 100,
  maxLoopIterations: 1000,
  segmentHistoryEvents: 10,
};

/** Features of the example's database (latitude, longitude in E7), a few of them. */
const FEATURES = [
  { name: 'Patriots Path, Mendham, NJ 07945, USA', location: { latitude: 407838351, longitude: -746143763 } },
  { name: '101 New Jersey 10, Whippany, NJ 07981, USA', location: { latitude: 408122808, longitude: -743999179 } },
  { name: 'U.S. 6, Shohola, PA 18458, USA', location: { latitude: 413628156, longitude: -749015468 } },
];

interface Point {
  latitude: number;
  longitude: number;
}

describe('gRPC nodes on the route guide .proto of gRPC’s examples', function () {
  this.timeout(20_000);
  let server: grpc.Server;
  let target: string;
  let policy: AddressPolicy;
  let sandbox: Sandbox;
  let pool: ExpressionPool;

  before(async () => {
    const pkg = grpc.loadPackageDefinition(loadSync(PROTO_PATH, { keepCase: true })) as unknown as {
      routeguide: { RouteGuide: { service: grpc.ServiceDefinition } };
    };
    server = new grpc.Server();
    const at = (p: Point) =>
      FEATURES.find((f) => f.location.latitude === p.latitude && f.location.longitude === p.longitude);
    server.addService(pkg.routeguide.RouteGuide.service, {
      GetFeature: (call: grpc.ServerUnaryCall<Point, unknown>, done: grpc.sendUnaryData<unknown>) =>
        done(null, at(call.request) ?? { name: '', location: call.request }),
      ListFeatures: (call: grpc.ServerWritableStream<{ lo: Point; hi: Point }, unknown>) => {
        const { lo, hi } = call.request;
        const inside = (v: number, a: number, b: number) => v >= Math.min(a, b) && v <= Math.max(a, b);
        for (const f of FEATURES)
          if (
            inside(f.location.latitude, lo.latitude, hi.latitude) &&
            inside(f.location.longitude, lo.longitude, hi.longitude)
          )
            call.write(f);
        call.end();
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    target = `127.0.0.1:${port}`;
    policy = new AddressPolicy({
      allow: [],
      deny: [],
      privateAccess: { node: 'loopback', script: 'none', library: 'none', webhook: 'none', bundler: 'none' },
      infrastructure: [],
    });
    sandbox = new Sandbox({ timeoutMs: 2000, memoryLimitMb: 32, policy });
    pool = new ExpressionPool({ size: 1 });
  });
  after(async () => {
    await sandbox?.dispose();
    await pool?.close();
    await policy?.close();
    server?.forceShutdown();
  });

  function run(flow: unknown[]): Promise<TestCaseResult> {
    const ports = directPorts({ sandbox, agent: policy.agent('node'), expressionPool: pool, policy });
    return FlowInterpreter.runTestCase(
      ports({ runId: 'run_route_guide', settings: SETTINGS, deadlineMs: Date.now() + 10_000 }),
      { id: 'tc', name: 'tc', flow: flow as FlowNode[], dataSets: {} } as never,
      { guide: target },
    );
  }

  const node = (method: string, message: unknown, assertions: unknown[]) => ({
    type: 'grpc',
    id: method,
    target: '{{guide}}',
    proto: PROTO,
    service: 'routeguide.RouteGuide',
    method,
    message,
    assertions,
  });

  it('accepts its unary and server-streaming methods when saved; refuses the client and bidirectional streams', () => {
    expect(protoProblem(PROTO, undefined, 'routeguide.RouteGuide', 'GetFeature')).to.equal(undefined);
    expect(protoProblem(PROTO, undefined, 'routeguide.RouteGuide', 'ListFeatures')).to.equal(undefined);
    for (const method of ['RecordRoute', 'RouteChat'])
      expect(protoProblem(PROTO, undefined, 'routeguide.RouteGuide', method), method).to.deep.include({
        field: 'method',
      });
  });

  it('calls GetFeature and streams ListFeatures; assertions read the messages by their declared names', async () => {
    const result = await run([
      node('GetFeature', { latitude: 407838351, longitude: -746143763 }, [
        { target: 'response.status', operator: 'equals', expected: 0 },
        { target: 'response.body.name', operator: 'equals', expected: 'Patriots Path, Mendham, NJ 07945, USA' },
      ]),
      node(
        'ListFeatures',
        { lo: { latitude: 400000000, longitude: -750000000 }, hi: { latitude: 410000000, longitude: -740000000 } },
        [
          { target: 'response.count', operator: 'equals', expected: 2 },
          { target: 'response.body.location.latitude', operator: 'equals', expected: [407838351, 408122808] },
        ],
      ),
    ]);
    expect(result.status, JSON.stringify(result.failures)).to.equal('passed');
    expect(result.nodes.map((n) => n.grpc?.messages)).to.deep.equal([1, 2]);
  });
});
