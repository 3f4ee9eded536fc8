/**
 * A loopback gRPC server (@grpc/grpc-js) serving test/fixtures/grpc/greeter.proto, for the gRPC
 * node tests and the docs' example (docs/async.md "gRPC"):
 *
 * - `SayHello`: `{message: "Hello, <name>!", mood: CHEERFUL}`; the request's `x-request-id`
 *   metadata comes back in the response headers and as the trailer `x-echo`;
 * - `StreamHellos`: `count` replies (`Hello 1, <name>!`, …, `index` 1…) `interval_ms` apart, then
 *   OK; with `count` 0 it streams until the client cancels or its deadline passes;
 * - `FindGreeting`: always NOT_FOUND with the details `no greeting for <name>`;
 * - `SlowHello`: answers after `delay_ms`.
 *
 * Every call is counted by method ({@link GreeterServer.calls}), with the metadata it carried.
 *
 * Run on its own for the docs' example: `node dist/test/helpers/grpc-server.js 50051`.
 */
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

/** The fixture's path (the tests run from dist/, the fixture stays in test/). */
export const GREETER_PROTO_PATH = path.resolve(__dirname, '../../../test/fixtures/grpc/greeter.proto');

/** A running greeter. */
export interface GreeterServer {
  /** `127.0.0.1:<port>`. */
  address: string;
  port: number;
  /** Calls received, in arrival order: the method name and the request metadata (lower-case names). */
  calls: Array<{ method: string; metadata: Record<string, string>; request: Record<string, unknown> }>;
  close(): Promise<void>;
}

interface Req {
  name?: string;
  count?: number;
  interval_ms?: number;
  delay_ms?: number;
}

/** Starts the greeter on loopback, on `port` (default: a free one). */
export async function startGreeterServer(port = 0): Promise<GreeterServer> {
  const definition = grpc.loadPackageDefinition(loadSync(GREETER_PROTO_PATH, { keepCase: true }));
  const greeter = (definition.assay as grpc.GrpcObject).greeter as grpc.GrpcObject;
  const service = (greeter.Greeter as grpc.ServiceClientConstructor).service;
  const server = new grpc.Server();
  const calls: GreeterServer['calls'] = [];
  const note = (method: string, call: { metadata: grpc.Metadata; request: Req }) => {
    const metadata: Record<string, string> = {};
    for (const [k, v] of Object.entries(call.metadata.getMap()))
      metadata[k] = Buffer.isBuffer(v) ? v.toString('base64') : v;
    calls.push({ method, metadata, request: { ...call.request } });
  };
  const echo = (call: { metadata: grpc.Metadata }) => {
    const md = new grpc.Metadata();
    const id = call.metadata.get('x-request-id')[0];
    if (id !== undefined) md.set('x-request-id', String(id));
    return md;
  };
  server.addService(service, {
    SayHello(call: grpc.ServerUnaryCall<Req, unknown>, callback: grpc.sendUnaryData<unknown>) {
      note('SayHello', call);
      call.sendMetadata(echo(call));
      const trailer = new grpc.Metadata();
      trailer.set('x-echo', String(call.metadata.get('x-request-id')[0] ?? 'none'));
      callback(null, { message: `Hello, ${call.request.name}!`, mood: 'CHEERFUL', served_at: Date.now() }, trailer);
    },
    StreamHellos(call: grpc.ServerWritableStream<Req, unknown>) {
      note('StreamHellos', call);
      call.sendMetadata(echo(call));
      const count = call.request.count ?? 0;
      let i = 0;
      const next = () => {
        if (call.cancelled) return;
        if (count > 0 && i >= count) {
          call.end();
          return;
        }
        i += 1;
        call.write({ message: `Hello ${i}, ${call.request.name}!`, index: i });
        timer = setTimeout(next, call.request.interval_ms ?? 0);
      };
      let timer = setTimeout(next, 0);
      call.on('cancelled', () => clearTimeout(timer));
    },
    FindGreeting(call: grpc.ServerUnaryCall<Req, unknown>, callback: grpc.sendUnaryData<unknown>) {
      note('FindGreeting', call);
      callback({ code: grpc.status.NOT_FOUND, details: `no greeting for ${call.request.name}` });
    },
    SlowHello(call: grpc.ServerUnaryCall<Req, unknown>, callback: grpc.sendUnaryData<unknown>) {
      note('SlowHello', call);
      const timer = setTimeout(
        () => callback(null, { message: `Hello at last, ${call.request.name}!` }),
        call.request.delay_ms ?? 0,
      );
      call.on('cancelled', () => clearTimeout(timer));
    },
  });
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    address: `127.0.0.1:${bound}`,
    port: bound,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.forceShutdown();
        resolve();
      }),
  };
}

if (require.main === module)
  void startGreeterServer(Number(process.argv[2] ?? 50051)).then((s) =>
    console.log(`greeter (test/fixtures/grpc/greeter.proto) on ${s.address}`),
  );
