/**
 * gRPC nodes' calls (docs/async.md "gRPC"): unary and server-streaming, with @grpc/grpc-js.
 *
 * - The `.proto` is compiled in memory and cached by content hash (src/grpc/proto.ts); the method
 *   must be unary or server-streaming; the request message is checked against its type (no unknown
 *   fields) and serialised before anything connects.
 * - The target goes through the address policy (src/net/address-policy.ts, kind `node`, the same
 *   rules as API nodes): the host is resolved and every address judged, then the channel connects
 *   to the judged address (`ipv4:`/`ipv6:` target of grpc-js naming,
 *   https://github.com/grpc/grpc/blob/master/doc/naming.md), with the original `host:port` as the
 *   HTTP/2 authority and, for TLS, as the name the certificate is checked against
 *   (`grpc.ssl_target_name_override`). Proxies from the environment are not used
 *   (`grpc.enable_http_proxy: 0`): the connection goes where it was judged.
 * - Channels are kept per (address, authority, TLS) in an LRU and reused by later calls (a load
 *   test makes many calls per second); the address is judged again for every call.
 * - A non-OK status is an outcome, not an error (assertions decide); `error` is set only when no
 *   call could be made. Server streams stop at `maxMessages` (the call is then cancelled).
 *
 * Plain function first ({@link createGrpcCaller}, which the direct port activities/direct-port.ts
 * uses), then the activity ({@link createGrpcActivities}) that adds Temporal's cancellation.
 */
import { performance } from 'node:perf_hooks';
import net from 'node:net';
import { Context } from '@temporalio/activity';
import * as grpc from '@grpc/grpc-js';
import { LRUCache } from 'lru-cache';
import type { GrpcCallInput, GrpcCallOutput } from '../src/domain/grpc-io';
import { compileProto, findMethod, messageProblem, ProtoError } from '../src/grpc/proto';
import { ADDRESS_NOT_ALLOWED, addressRefusalIn, type AddressPolicy } from '../src/net/address-policy';
import { jsonBytes, PAYLOAD_LIMITS } from '../src/domain/limits';
import { preview } from '../src/domain/assertions';
import type { NodeExecutionRecords } from '../src/store/node-executions';
import { recordedExecution } from './recorded';

/** Makes one gRPC node's call; never throws for what the call meets. */
export type GrpcCaller = (input: GrpcCallInput, signal?: AbortSignal) => Promise<GrpcCallOutput>;

/** Messages kept from each end of a stream whose messages are too large to keep whole. */
const KEPT_ENDS = 20;
/** Bytes (JSON) of the messages kept whole; past it only the ends are kept, each cut to a preview. */
const MESSAGES_BYTES = PAYLOAD_LIMITS.valueBytes;

/** A target as written: host, port and whether TLS is used. */
export interface GrpcTarget {
  host: string;
  port: number;
  tls: boolean;
}

/**
 * Reads a node's target: `host:port`, `grpc://host:port`, `http://host:port` (plaintext),
 * `grpcs://host[:port]`, `https://host[:port]` (TLS, default 443); IPv6 addresses in brackets.
 * @throws Error naming what is wrong
 */
export function parseGrpcTarget(target: string): GrpcTarget {
  const m = /^(grpcs?|https?):\/\/(.*)$/i.exec(target.trim());
  const scheme = m ? m[1]!.toLowerCase() : undefined;
  const rest = (m ? m[2]! : target.trim()).replace(/\/$/, '');
  if (!scheme && /^[a-z][a-z0-9+.-]*:\/\//i.test(target))
    throw new Error(`"${target}": the scheme must be grpc://, grpcs://, http:// or https://`);
  if (rest.includes('/')) throw new Error(`"${target}": a gRPC target is host:port, without a path`);
  const tls = scheme === 'grpcs' || scheme === 'https';
  const hp = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(rest);
  if (!hp) throw new Error(`"${target}" is not host:port`);
  const host = hp[1]!.replace(/^\[|\]$/g, '');
  const port = hp[2] !== undefined ? Number(hp[2]) : tls ? 443 : scheme === 'http' ? 80 : NaN;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(
      `"${target}": ${hp[2] === undefined ? 'a port is needed (host:port)' : 'the port must be 1 to 65535'}`,
    );
  return { host, port, tls };
}

/** Metadata as a plain record: lower-case names, values joined with `, `, binary values as base64. */
function metadataRecord(md: grpc.Metadata | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!md) return out;
  for (const [name, values] of Object.entries(md.toJSON()))
    out[name] = (values as Array<string | Buffer>)
      .map((v) => (Buffer.isBuffer(v) ? v.toString('base64') : v))
      .join(', ');
  return out;
}

/** The messages kept: all of them within {@link MESSAGES_BYTES}, else the ends, each cut to a preview. */
function keptMessages(messages: unknown[]): { messages: unknown[]; truncated: boolean } {
  if (jsonBytes(messages) <= MESSAGES_BYTES) return { messages, truncated: false };
  const ends =
    messages.length > 2 * KEPT_ENDS ? [...messages.slice(0, KEPT_ENDS), ...messages.slice(-KEPT_ENDS)] : messages;
  const each = Math.floor(MESSAGES_BYTES / (2 * KEPT_ENDS) / 2);
  return { messages: ends.map((m) => preview(m, each)), truncated: true };
}

/**
 * The gRPC caller over `policy` (its `node` rules). Channels are shared by every call it makes;
 * `close` shuts them.
 */
export function createGrpcCaller(policy: AddressPolicy): GrpcCaller & { close(): void } {
  const clients = new LRUCache<string, grpc.Client>({
    max: 64,
    dispose: (client) => client.close(),
  });

  const clientFor = (address: string, family: number, target: GrpcTarget): grpc.Client => {
    const authority = `${net.isIPv6(target.host) ? `[${target.host}]` : target.host}:${target.port}`;
    const key = `${target.tls ? 'tls' : 'plain'}|${address}|${authority}`;
    let client = clients.get(key);
    if (!client) {
      const connectTo = family === 6 ? `ipv6:[${address}]:${target.port}` : `ipv4:${address}:${target.port}`;
      client = new grpc.Client(
        connectTo,
        target.tls ? grpc.credentials.createSsl() : grpc.credentials.createInsecure(),
        {
          'grpc.default_authority': authority,
          'grpc.enable_http_proxy': 0,
          ...(target.tls && !net.isIP(target.host) ? { 'grpc.ssl_target_name_override': target.host } : {}),
        },
      );
      clients.set(key, client);
    }
    return client;
  };

  const call: GrpcCaller = async (input, signal) => {
    const started = performance.now();
    const base = {
      path: `${input.service}/${input.method}`,
      target: input.target,
      streaming: false,
      headers: {},
      trailers: {},
      messages: [],
      count: 0,
      truncated: false,
      size: 0,
    };
    const failure = (errorCode: string, error: string): GrpcCallOutput => ({
      ...base,
      timeMs: Math.round((performance.now() - started) * 10) / 10,
      error,
      errorCode,
      finishedAtMs: Date.now(),
    });

    // The method and the message, before any connection.
    let method;
    try {
      method = findMethod(compileProto(input.proto, input.protoFiles), input.service, input.method);
    } catch (err) {
      if (err instanceof ProtoError) return failure(err.code, err.message);
      throw err;
    }
    base.streaming = method.streaming;
    const message = input.message ?? {};
    const problem = messageProblem(method.requestType, message);
    if (problem) return failure('MESSAGE_INVALID', `the request message does not fit: ${problem}`);
    let payload: Buffer;
    try {
      payload = method.definition.requestSerialize(message);
    } catch (err) {
      return failure('MESSAGE_INVALID', `the request message does not fit: ${(err as Error).message}`);
    }
    const metadata = new grpc.Metadata();
    try {
      for (const [name, value] of Object.entries(input.metadata)) {
        const key = name.toLowerCase();
        metadata.add(key, key.endsWith('-bin') ? Buffer.from(value, 'base64') : value);
      }
    } catch (err) {
      return failure('METADATA_INVALID', `metadata: ${(err as Error).message}`);
    }

    // Where to connect: judged by the address policy.
    let target: GrpcTarget;
    try {
      target = parseGrpcTarget(input.target);
    } catch (err) {
      return failure('INVALID_TARGET', (err as Error).message);
    }
    base.target = `${target.tls ? 'grpcs' : 'grpc'}://${net.isIPv6(target.host) ? `[${target.host}]` : target.host}:${target.port}`;
    let address: { address: string; family: number };
    try {
      [address] = (await policy.resolve('node', target.host, target.port)) as [{ address: string; family: number }];
    } catch (err) {
      const refused = addressRefusalIn(err);
      if (refused)
        return failure(
          ADDRESS_NOT_ALLOWED,
          `${base.path} at ${base.target} was not called (ADDRESS_NOT_ALLOWED): ${refused.message}`,
        );
      const code = (err as NodeJS.ErrnoException).code ?? 'NETWORK_ERROR';
      return failure(code, `${base.path} at ${base.target} was not called: ${(err as Error).message}`);
    }
    if (signal?.aborted) return failure('CANCELLED', `${base.path} was cancelled`);

    const client = clientFor(address.address, address.family, target);
    const messages: unknown[] = [];
    let count = 0;
    let size = 0;
    let stoppedBy: GrpcCallOutput['stoppedBy'];
    const deserialize = (buffer: Buffer) => {
      size += buffer.length;
      return method.definition.responseDeserialize(buffer);
    };
    const options: grpc.CallOptions = { deadline: Date.now() + input.deadlineMs };
    const status = await new Promise<{ status: grpc.StatusObject; headers?: grpc.Metadata }>((resolve) => {
      let headers: grpc.Metadata | undefined;
      let c: grpc.ClientUnaryCall | grpc.ClientReadableStream<unknown>;
      if (method.streaming) {
        const stream = client.makeServerStreamRequest(
          method.path,
          (b: Buffer) => b,
          deserialize,
          payload,
          metadata,
          options,
        );
        stream.on('data', (m: unknown) => {
          count += 1;
          if (count > input.maxMessages) return;
          messages.push(m);
          if (count === input.maxMessages) {
            stoppedBy = 'maxMessages';
            stream.cancel();
          }
        });
        // Errors come with the status too; a listener keeps them from being thrown.
        stream.on('error', () => undefined);
        c = stream;
      } else {
        c = client.makeUnaryRequest(
          method.path,
          (b: Buffer) => b,
          deserialize,
          payload,
          metadata,
          options,
          (_err, value) => {
            if (value !== undefined) {
              count = 1;
              messages.push(value);
            }
          },
        );
      }
      c.on('metadata', (md: grpc.Metadata) => (headers = md));
      c.on('status', (s: grpc.StatusObject) => resolve({ status: s, headers }));
      signal?.addEventListener('abort', () => c.cancel(), { once: true });
    });
    if (method.streaming && stoppedBy === undefined) stoppedBy = 'end';
    const kept = keptMessages(messages);
    return {
      ...base,
      code: status.status.code,
      status: grpc.status[status.status.code] ?? `CODE_${status.status.code}`,
      ...(status.status.code !== 0 && status.status.details ? { details: status.status.details } : {}),
      headers: metadataRecord(status.headers),
      trailers: metadataRecord(status.status.metadata),
      messages: kept.messages,
      count,
      truncated: kept.truncated,
      ...(stoppedBy ? { stoppedBy } : {}),
      size,
      sentSize: payload.length,
      timeMs: Math.round((performance.now() - started) * 10) / 10,
      finishedAtMs: Date.now(),
    };
  };

  return Object.assign(call, {
    close: () => clients.clear(),
  });
}

/** The gRPC activity: {@link createGrpcCaller}'s call, cancelled with the activity. */
export function createGrpcActivities(policy: AddressPolicy, records?: NodeExecutionRecords) {
  const call = createGrpcCaller(policy);
  return {
    /** A gRPC node's call (docs/async.md "gRPC"), at most once across crashes (activities/recorded.ts); failures come back as data. */
    callGrpcNode(input: GrpcCallInput): Promise<GrpcCallOutput> {
      let signal: AbortSignal | undefined;
      try {
        signal = Context.current().cancellationSignal;
      } catch {
        signal = undefined;
      }
      return recordedExecution(records, input, () => call(input, signal));
    },
  };
}
