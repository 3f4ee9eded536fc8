/**
 * Start-up retries: a service that depends on the database or Temporal waits for it with backoff
 * instead of exiting, and says so in one log line per attempt (docs/operations.md). Errors that are not transient (a wrong password, a malformed address) still end
 * start-up at once, with their message.
 */
import type { Logger } from 'pino';

export interface RetryOptions {
  logger: Logger;
  /** What is being waited for, for the log line ("the database", "Temporal at 127.0.0.1:7233"). */
  what: string;
  /** True for errors worth waiting out; default: every error. */
  isTransient?: (err: unknown) => boolean;
  /** First wait, ms (default 1000); doubles up to `maxDelayMs` (default 30000). */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Gives up (rethrows) after this long, ms; default never. */
  giveUpAfterMs?: number;
}

/** Calls `fn` until it resolves; waits between attempts as configured. */
export async function retryForever<T>(fn: () => Promise<T>, options: RetryOptions): Promise<T> {
  const { logger, what } = options;
  let delay = options.initialDelayMs ?? 1000;
  const max = options.maxDelayMs ?? 30_000;
  const until = options.giveUpAfterMs === undefined ? Infinity : Date.now() + options.giveUpAfterMs;
  for (let attempt = 1; ; attempt++) {
    try {
      const value = await fn();
      if (attempt > 1) logger.info({ attempts: attempt }, `${what} is reachable`);
      return value;
    } catch (err) {
      if (options.isTransient && !options.isTransient(err)) throw err;
      if (Date.now() + delay > until) throw err;
      logger.warn(
        { attempt, retryInMs: delay, error: (err as Error).message },
        `${what} is unreachable; retrying in ${Math.round(delay / 1000)} s`,
      );
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(max, delay * 2);
    }
  }
}
