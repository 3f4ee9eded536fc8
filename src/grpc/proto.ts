/**
 * `.proto` source kept in a gRPC node (docs/async.md "gRPC"), compiled in memory: parsed with
 * protobufjs (https://protobuf.dev/reference/protobuf/proto3-spec/), imports taken from the node's
 * `protoFiles` or Google's well-known types (`google/protobuf/timestamp.proto`, …, as protobufjs
 * bundles them), then turned into gRPC method definitions by @grpc/proto-loader `fromJSON`. Nothing
 * touches the file system.
 *
 * Used at save time (src/validation/flow.ts: the source parses and declares the service and
 * method) and by the gRPC activity (activities/grpc.ts), which keeps compiled definitions in an
 * LRU by content hash ({@link compileProto}).
 *
 * Messages are JSON with the field names as declared (`keepCase`); in responses 64-bit integers
 * are strings, enums their names, bytes base64 text, and absent fields their defaults.
 */
import { createHash } from 'node:crypto';
import protobuf from 'protobufjs';
import { fromJSON, type MethodDefinition, type Options, type PackageDefinition } from '@grpc/proto-loader';
import { LRUCache } from 'lru-cache';

/** How messages are read from the wire (@grpc/proto-loader options; see the module comment). */
const LOADER_OPTIONS: Options = {
  keepCase: true,
  longs: String,
  enums: String,
  bytes: String,
  defaults: true,
  oneofs: true,
};

/** A `.proto` problem, with a stable `code`: PROTO_INVALID, METHOD_NOT_FOUND or METHOD_NOT_SUPPORTED. */
export class ProtoError extends Error {
  constructor(
    message: string,
    readonly code: 'PROTO_INVALID' | 'METHOD_NOT_FOUND' | 'METHOD_NOT_SUPPORTED' = 'PROTO_INVALID',
  ) {
    super(message);
    this.name = 'ProtoError';
  }
}

/** A compiled `.proto`: the protobufjs root (for checking messages) and the gRPC definitions. */
export interface CompiledProto {
  root: protobuf.Root;
  definition: PackageDefinition;
}

/** A method found in a compiled `.proto`. */
export interface GrpcMethod {
  /** `/package.Service/Method`, the HTTP/2 path (gRPC over HTTP/2 spec). */
  path: string;
  definition: MethodDefinition<unknown, unknown>;
  /** The request message type (`package.HelloRequest`). */
  requestType: protobuf.Type;
  streaming: boolean;
}

/**
 * Parses `proto` (named `proto` in messages) and its imports into one root.
 * @throws ProtoError naming the file and what is wrong (the parser's message has the line)
 */
export function parseProto(proto: string, protoFiles: Record<string, string> = {}): protobuf.Root {
  const root = new protobuf.Root();
  const seen = new Set<string>();
  const parseFile = (name: string, source: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    let parsed: protobuf.IParserResult;
    try {
      parsed = protobuf.parse(source, root, { keepCase: true });
    } catch (err) {
      throw new ProtoError(`${name === 'proto' ? 'the proto' : name} does not parse: ${(err as Error).message}`);
    }
    for (const imported of [...(parsed.imports ?? []), ...(parsed.weakImports ?? [])]) {
      if (Object.prototype.hasOwnProperty.call(protoFiles, imported)) parseFile(imported, protoFiles[imported]!);
      else if (protobuf.common.get(imported)) {
        if (seen.has(imported)) continue;
        seen.add(imported);
        root.addJSON((protobuf.common.get(imported) as protobuf.INamespace).nested!);
      } else
        throw new ProtoError(
          `${name === 'proto' ? 'the proto' : name} imports "${imported}", which is neither in protoFiles nor one of Google's well-known types`,
        );
    }
  };
  parseFile('proto', proto);
  try {
    root.resolveAll();
  } catch (err) {
    throw new ProtoError(`the proto does not resolve: ${(err as Error).message}`);
  }
  return root;
}

/** Compiled definitions by content hash: a node's `.proto` compiles once per worker (and per load thread). */
const compiled = new LRUCache<string, CompiledProto | ProtoError>({ max: 100 });

/**
 * The compiled `.proto` (cached by the SHA-256 of the source and its imports).
 * @throws ProtoError
 */
export function compileProto(proto: string, protoFiles: Record<string, string> = {}): CompiledProto {
  const key = createHash('sha256')
    .update(JSON.stringify([proto, Object.entries(protoFiles).sort(([a], [b]) => (a < b ? -1 : 1))]))
    .digest('base64url');
  let entry = compiled.get(key);
  if (!entry) {
    try {
      const root = parseProto(proto, protoFiles);
      let definition: PackageDefinition;
      try {
        definition = fromJSON(root.toJSON(), LOADER_OPTIONS);
      } catch (err) {
        throw new ProtoError(`the proto does not compile: ${(err as Error).message}`);
      }
      entry = { root, definition };
    } catch (err) {
      if (!(err instanceof ProtoError)) throw err;
      entry = err;
    }
    compiled.set(key, entry);
  }
  if (entry instanceof ProtoError) throw entry;
  return entry;
}

/** The services a compiled `.proto` declares, by fully-qualified name. */
function services(definition: PackageDefinition): string[] {
  return Object.keys(definition).filter((name) => !('format' in (definition[name] as object)));
}

/**
 * `service`/`method` of a compiled `.proto`: unary or server-streaming.
 * @throws ProtoError METHOD_NOT_FOUND (naming what the proto declares) or METHOD_NOT_SUPPORTED
 *   (client-streaming and bidirectional methods)
 */
export function findMethod(proto: CompiledProto, service: string, method: string): GrpcMethod {
  const declared = services(proto.definition);
  const svc = declared.includes(service)
    ? (proto.definition[service] as Record<string, MethodDefinition<unknown, unknown>>)
    : undefined;
  if (!svc)
    throw new ProtoError(
      `the proto declares no service "${service}" (${declared.length ? `its services: ${declared.join(', ')}` : 'it declares none'}; use the fully-qualified name, package.Service)`,
      'METHOD_NOT_FOUND',
    );
  const definition = Object.prototype.hasOwnProperty.call(svc, method) ? svc[method] : undefined;
  if (!definition)
    throw new ProtoError(
      `service ${service} has no method "${method}" (its methods: ${Object.keys(svc).join(', ')})`,
      'METHOD_NOT_FOUND',
    );
  if (definition.requestStream)
    throw new ProtoError(
      `${service}/${method} is ${definition.responseStream ? 'bidirectional' : 'client'}-streaming; gRPC nodes call unary and server-streaming methods`,
      'METHOD_NOT_SUPPORTED',
    );
  const requestType = proto.root.lookupType(
    (proto.root.lookupService(service).methods[method] as protobuf.Method).resolvedRequestType!.fullName,
  );
  return { path: definition.path, definition, requestType, streaming: definition.responseStream };
}

/**
 * Why `proto` cannot serve `service`/`method` (it does not parse, or lacks them), or undefined when
 * it can: the check made when a flow is saved.
 */
export function protoProblem(
  proto: string,
  protoFiles: Record<string, string> | undefined,
  service: string,
  method: string,
): { field: 'proto' | 'service' | 'method'; message: string } | undefined {
  try {
    const compiledProto = compileProto(proto, protoFiles);
    findMethod(compiledProto, service, method);
    return undefined;
  } catch (err) {
    if (!(err instanceof ProtoError)) throw err;
    const field =
      err.code === 'PROTO_INVALID'
        ? 'proto'
        : err.message.startsWith('the proto declares no service')
          ? 'service'
          : 'method';
    return { field, message: err.message };
  }
}

/**
 * Why `value` is not a message of `type` (an object whose fields are all declared, with the same
 * check for nested messages), or undefined. protobufjs `fromObject` drops unknown fields silently;
 * a misspelt field would send a default without a word.
 */
export function messageProblem(type: protobuf.Type, value: unknown, at = ''): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return `${at || 'the message'} must be a JSON object (a ${type.fullName.replace(/^\./, '')})`;
  for (const [name, field] of Object.entries(value as Record<string, unknown>)) {
    const declared = type.fields[name];
    const where = at ? `${at}.${name}` : name;
    if (!declared) {
      const names = Object.keys(type.fields);
      return `${type.fullName.replace(/^\./, '')} has no field "${where}"${names.length ? ` (its fields: ${names.join(', ')})` : ''}`;
    }
    const sub = declared.resolvedType;
    if (!(sub instanceof protobuf.Type) || sub.fullName.startsWith('.google.protobuf.') || field === null) continue;
    const items = declared.map
      ? Object.values((field ?? {}) as Record<string, unknown>)
      : declared.repeated && Array.isArray(field)
        ? field
        : [field];
    for (const item of items) {
      const problem = messageProblem(sub, item, where);
      if (problem) return problem;
    }
  }
  return undefined;
}
