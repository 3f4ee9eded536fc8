/**
 * The host side of what scripts in the sandbox reach outside their isolate (`globalThis.__assayHost`,
 * used by the runtime, src/sandbox/runtime/bootstrap.js): `fetch`, sleep (the runtime's timers) and
 * random bytes (`crypto.getRandomValues`).
 *
 * The bridged `fetch` goes through the host (undici) with `fetchTimeoutMs` and a response cap of
 * `maxFetchBytes`, connecting through the address policy (src/net/address-policy.ts) with kind
 * `script`; a refused address, a timeout or a response over the cap is the fetch's error (`fetch`
 * rejects), never the host's. {@link download} is the one request both it and the library loader
 * (src/sandbox/library-loader.ts, kind `library`) make.
 */
import { randomBytes } from 'node:crypto';
import ivm from 'isolated-vm';
import type { AddressPolicy, EgressKind } from '../net/address-policy';
import { guardedRequest, readCapped } from '../net/http';

/** The request a script's `fetch` asks for, as the runtime sends it. */
export interface FetchInit {
  method?: string;
  headers?: Array<[string, string]>;
  bodyBase64?: string;
  redirect?: string;
}

/** What the runtime's `fetch` gets back: the response, or the message it rejects with. */
export type FetchAnswer =
  | { error: string }
  | {
      status: number;
      statusText: string;
      url: string;
      redirected: boolean;
      headers: Array<[string, string]>;
      bodyBase64: string;
      error?: undefined;
    };

export interface HostBridgeOptions {
  /** Judges each `fetch` (kind `script`). */
  policy: AddressPolicy;
  fetchTimeoutMs: number;
  maxFetchBytes: number;
}

export class HostBridge {
  constructor(private readonly options: HostBridgeOptions) {}

  /**
   * Sets `globalThis.__assayHost` in a fresh `context`: `fetch` and `sleep` answer through this
   * bridge, `randomBytes` from the host's CSPRNG. Each arrives in the isolate as a Reference,
   * reachable only through the closures installed here.
   */
  async install(context: ivm.Context): Promise<void> {
    const global = context.global;
    await global.set(
      '__assayRandomBytes',
      new ivm.Callback((n: number) => [...randomBytes(Math.min(65536, Math.max(0, Number(n) || 0)))]),
    );
    await context.evalClosure(
      `globalThis.__assayHost = {
        fetch: (url, init) => $0.apply(undefined, [url, init], { arguments: { copy: true }, result: { promise: true, copy: true } }),
        sleep: (ms) => $1.apply(undefined, [ms], { arguments: { copy: true }, result: { promise: true } }),
        randomBytes: globalThis.__assayRandomBytes,
      };
      delete globalThis.__assayRandomBytes;`,
      [(url: string, init: FetchInit) => this.fetch(url, init), (ms: number) => this.sleep(ms)],
      { arguments: { reference: true } },
    );
  }

  /** Resolves after `ms` (clamped to 0 … 2³¹−1); does not keep the process alive. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(0, Number(ms) || 0), 2 ** 31 - 1)).unref());
  }

  /** A script's `fetch`: http and https only, through the policy, within the timeout and the cap. Never throws. */
  async fetch(url: string, init: FetchInit): Promise<FetchAnswer> {
    const { policy, fetchTimeoutMs, maxFetchBytes } = this.options;
    try {
      const parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
        return { error: `only http and https URLs can be fetched, not ${parsed.protocol}` };
      const res = await download(policy, 'script', url, fetchTimeoutMs, maxFetchBytes, {
        method: init.method,
        headers: Object.fromEntries(init.headers ?? []),
        body: init.bodyBase64 ? Buffer.from(init.bodyBase64, 'base64') : undefined,
        follow: init.redirect !== 'manual',
      });
      if (res.truncated) return { error: `the response is larger than ${maxFetchBytes} bytes` };
      return {
        status: res.status,
        statusText: res.statusText,
        url: res.url,
        redirected: res.url !== url,
        headers: res.headers,
        bodyBase64: res.body.toString('base64'),
      };
    } catch (err) {
      return { error: (err as Error).message };
    }
  }
}

/** One GET (or the script's request) through `policy`'s agent for `kind`, read up to `maxBytes`. */
export async function download(
  policy: AddressPolicy,
  kind: EgressKind,
  url: string,
  timeoutMs: number,
  maxBytes: number,
  init: { method?: string; headers?: Record<string, string>; body?: Buffer; follow?: boolean } = {},
): Promise<{
  status: number;
  statusText: string;
  url: string;
  headers: Array<[string, string]>;
  body: Buffer;
  truncated: boolean;
}> {
  const res = await guardedRequest(policy.agent(kind), url, {
    method: init.method,
    headers: { 'user-agent': 'Assay-Sandbox/0.1', ...init.headers },
    body: init.body,
    timeoutMs,
    followRedirects: init.follow !== false,
  });
  const { bytes, truncated } = await readCapped(res.body, maxBytes);
  const headers: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(res.headers)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) headers.push([k.toLowerCase(), one]);
  }
  return { status: res.statusCode, statusText: '', url, headers, body: bytes, truncated };
}
