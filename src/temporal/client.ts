/**
 * A Temporal client that connects on first use, for the API's processes: the API serves
 * everything else while Temporal is down, and a call made meanwhile fails fast.
 *
 * `Connection.lazy` is not used: its background connect keeps retrying after a call gave up, and
 * closing it then leaves a rejected promise no one handles ("Channel has been shut down"). Here the
 * connect is one awaited promise with a timeout, forgotten when it fails, so the next call tries
 * again, and `close` waits for it.
 *
 * Its payloads (workflow and schedule inputs, queries, results) go through the encryption codec
 * (src/temporal/codec.ts). With traces on (src/observability/tracing.ts), starting a workflow is a
 * span whose context travels in the workflow's start header (src/observability/tracing-temporal.ts).
 */
import { Client, Connection } from '@temporalio/client';
import type { AssayConfig } from '../config';
import { dataConverter, type PayloadScopes } from './codec';
import { clientTracingInterceptors } from '../observability/tracing-temporal';
import { pingTemporal } from '../observability/health';

/** How long a closed client's connection stays open for the SDK's own pending retries (ms). */
const CLOSE_GRACE_MS = 60_000;

export class OnDemandClient {
  private connecting: Promise<{ connection: Connection; client: Client }> | undefined;

  /** `scopes`: which run (workspace, secrets) a payload belongs to (src/temporal/payload-scopes.ts); without it payloads get no workspace. */
  constructor(
    private readonly config: AssayConfig,
    private readonly scopes?: PayloadScopes,
  ) {}

  /** The client, connecting first if needed. @throws when Temporal cannot be reached within 5 s. */
  async get(): Promise<Client> {
    this.connecting ??= (async () => {
      const connection = await Connection.connect({
        address: this.config.temporal.address,
        connectTimeout: '5 seconds',
      });
      return {
        connection,
        client: new Client({
          connection,
          namespace: this.config.temporal.namespace,
          dataConverter: dataConverter(this.config, this.scopes),
          interceptors: clientTracingInterceptors(),
        }),
      };
    })();
    try {
      return (await this.connecting).client;
    } catch (err) {
      this.connecting = undefined;
      throw err;
    }
  }

  /** The connection (for the operator service); connects first if needed. */
  async connection(): Promise<Connection> {
    await this.get();
    return (await this.connecting!).connection;
  }

  /**
   * Whether Temporal answers (`GetSystemInfo`) within `ms`; readiness probes (docs/operations.md).
   * @throws when it cannot be reached or does not answer in time
   */
  async ping(ms: number): Promise<void> {
    await pingTemporal(await this.connection(), ms);
  }

  /** Runs `fn` with the client under a deadline of `ms` (the client's own retries stop there). */
  async call<T>(ms: number, fn: (client: Client) => Promise<T>): Promise<T> {
    const client = await this.get();
    return client.withDeadline(Date.now() + ms, () => fn(client));
  }

  /**
   * Forgets the connection and closes it a minute later. The SDK retries a failed call on a timer
   * (@temporalio/client grpc-retry) and opens a new call on the channel when the timer fires; a
   * channel closed before that makes the timer throw "Channel has been shut down" as an uncaught
   * exception (seen in the test suite after an API stopped). The delay (an unref'd timer, so it
   * keeps no process alive) lets such retries end on an open channel.
   */
  async close(): Promise<void> {
    const pending = this.connecting;
    this.connecting = undefined;
    const connected = await pending?.catch(() => undefined);
    if (!connected) return;
    setTimeout(() => void connected.connection.close().catch(() => undefined), CLOSE_GRACE_MS).unref();
  }
}
