/**
 * The parts of Mozilla's `hawk` library (9.x, JavaScript without its own types) that Assay uses:
 * the client's request header (src/net/request-auth.ts) and the server's check (the tests'
 * verifier).
 */
declare module 'hawk' {
  interface Credentials {
    id: string;
    key: string;
    algorithm: 'sha1' | 'sha256';
  }
  interface UriParts {
    protocol?: string;
    hostname?: string;
    port?: string | number;
    pathname?: string;
    search?: string;
  }
  interface ClientHeaderOptions {
    credentials: Credentials;
    ext?: string;
    timestamp?: number;
    nonce?: string;
    localtimeOffsetMsec?: number;
    /** Text (hashed as UTF-8) or bytes (a request with files). */
    payload?: string | Buffer;
    contentType?: string;
    hash?: string;
    app?: string;
    dlg?: string;
  }
  interface Artifacts {
    method: string;
    host: string;
    port: number;
    resource: string;
    ts: string;
    nonce: string;
    hash?: string;
    ext?: string;
    app?: string;
    dlg?: string;
    mac?: string;
    id?: string;
  }
  interface ServerRequest {
    method: string;
    url: string;
    host: string;
    port: number;
    authorization: string;
    contentType?: string;
  }
  const hawk: {
    client: {
      header(
        uri: string | UriParts,
        method: string,
        options: ClientHeaderOptions,
      ): { header: string; artifacts: Artifacts };
    };
    server: {
      authenticate(
        req: ServerRequest | import('node:http').IncomingMessage,
        credentialsFunc: (
          id: string,
        ) => Promise<(Credentials & Record<string, unknown>) | undefined> | Credentials | undefined,
        options?: {
          payload?: string;
          host?: string;
          port?: number;
          localtimeOffsetMsec?: number;
          timestampSkewSec?: number;
        },
      ): Promise<{ credentials: Credentials; artifacts: Artifacts }>;
      authenticatePayload(payload: string, credentials: Credentials, artifacts: Artifacts, contentType: string): void;
    };
  };
  export default hawk;
}
