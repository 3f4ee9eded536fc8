/**
 * The OAuth 2.0 token cache (docs/auth.md "Caching and refresh"): one token per (workspace,
 * profile, environment, hash of the filled profile — a changed secret gets a new token), shared by
 * every run and virtual user of the process, and through the `auth_tokens` table by every process:
 *
 * - in memory first; a miss reads the row (the token sealed with the key ring, AAD the cache key);
 * - single-flight: one request per key at a time in a process (100 virtual users asking at once
 *   make one token request); across processes a lease on the row (`leaseUntil`) makes the others
 *   wait for the holder's token (best effort: a lease that runs out lets the next one fetch);
 * - renewal ahead of expiry (src/auth/oauth2.ts `needsRenewal`): with the refresh token when one
 *   came (RFC 6749 §6), else the profile's grant again; a refresh that fails falls back to the grant;
 * - {@link TokenCache.get} with `rejected` (a 401 from the API under test): a token other than the
 *   rejected one if another caller renewed it meanwhile, else a new one.
 *
 * The database is optional (best effort): an unreachable one leaves the memory cache working.
 */
import { createHash } from 'node:crypto';
import { IsNull, LessThan, type DataSource } from 'typeorm';
import { AuthToken } from '../store/entities';
import type { KeyRing } from '../secrets/keyring';
import { needsRenewal, type Token } from './oauth2';

/** How long a process holding the lease may take to fetch a token before another may, ms (above the request timeout). */
const POLL_MS = 50;

/** Who the token belongs to. */
export interface TokenOwner {
  workspaceId: string;
  profileId: string;
}

/** The cache key: sha256 of the owner, the environment and the filled profile fields. */
export function tokenCacheKey(owner: TokenOwner, environment: string, filled: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([owner.workspaceId, owner.profileId, environment, filled]))
    .digest('hex');
}

function aad(key: string): string {
  return `assay-auth-token:${key}`;
}

export class TokenCache {
  private readonly memory = new Map<string, Token>();
  private readonly flights = new Map<string, Promise<Token>>();

  /** `dataSource`: the store (or a function giving it lazily), none for memory only. */
  constructor(
    private readonly ring: KeyRing,
    private readonly dataSource?: () => Promise<DataSource | undefined>,
  ) {}

  /** The token in memory for `key` when it needs no renewal yet; undefined otherwise (no store access). */
  peek(key: string): Token | undefined {
    const token = this.memory.get(key);
    return token && !needsRenewal(token, Date.now()) ? token : undefined;
  }

  /** Forgets every token in memory (tests). */
  clearMemory(): void {
    this.memory.clear();
  }

  /**
   * A valid token for `key`: cached, or from `fetch(refreshToken?)` (`refreshToken`: the cached
   * token's, for a renewal). `rejected`: an access token the API under test refused; never
   * returned again. `leaseMs`: how long fetching may take (the request timeout).
   */
  async get(
    key: string,
    owner: TokenOwner,
    fetch: (refreshToken?: string) => Promise<Token>,
    options: { rejected?: string; leaseMs: number },
  ): Promise<{ token: Token; fetched: boolean }> {
    const usable = (t: Token | undefined): boolean =>
      t !== undefined && t.accessToken !== options.rejected && !needsRenewal(t, Date.now());
    const cached = this.memory.get(key);
    if (cached && usable(cached)) return { token: cached, fetched: false };
    let flight = this.flights.get(key);
    if (flight) {
      const token = await flight;
      if (usable(token)) return { token, fetched: false };
    }
    let fetched = false;
    flight = (async () => {
      const stored = await this.readRow(key);
      if (stored && usable(stored)) return stored;
      const stale: Token | undefined = stored ?? cached;
      const owns = await this.acquire(key, owner, options.leaseMs);
      if (!owns) {
        const other = await this.waitForOther(key, usable, options.leaseMs);
        if (other) return other;
      } else {
        // Read again with the lease held: another process may have stored a token and released its
        // lease between this one's read above and its taking the lease (one token request, not two).
        const meanwhile = await this.readRow(key);
        if (meanwhile && usable(meanwhile)) {
          await this.release(key);
          return meanwhile;
        }
      }
      fetched = true;
      let token: Token;
      try {
        if (stale?.refreshToken) {
          try {
            token = await fetch(stale.refreshToken);
          } catch {
            token = await fetch();
          }
        } else token = await fetch();
      } catch (err) {
        await this.release(key);
        throw err;
      }
      await this.writeRow(key, owner, token);
      return token;
    })();
    this.flights.set(key, flight);
    try {
      const token = await flight;
      this.memory.set(key, token);
      return { token, fetched };
    } finally {
      if (this.flights.get(key) === flight) this.flights.delete(key);
    }
  }

  private async db(): Promise<DataSource | undefined> {
    try {
      return await this.dataSource?.();
    } catch {
      return undefined;
    }
  }

  private async readRow(key: string): Promise<Token | undefined> {
    const ds = await this.db();
    if (!ds) return undefined;
    try {
      const row = await ds.getRepository(AuthToken).findOneBy({ key });
      return row?.sealed ? (JSON.parse(this.ring.open(row.sealed, aad(key))) as Token) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Takes the row's lease for `leaseMs`; true when this process may fetch (also when there is no store). */
  private async acquire(key: string, owner: TokenOwner, leaseMs: number): Promise<boolean> {
    const ds = await this.db();
    if (!ds) return true;
    const repo = ds.getRepository(AuthToken);
    const now = new Date();
    const until = new Date(now.getTime() + leaseMs + 1000);
    try {
      const set = { leaseUntil: until, updatedAt: now };
      let taken = await repo.update({ key, leaseUntil: IsNull() }, set);
      if (!taken.affected) taken = await repo.update({ key, leaseUntil: LessThan(now) }, set);
      if ((taken.affected ?? 0) > 0) return true;
      const exists = await repo.existsBy({ key });
      if (exists) return false;
      await repo.insert({ key, ...owner, sealed: null, expiresAt: null, leaseUntil: until, updatedAt: now });
      return true;
    } catch {
      // Another process inserted the row first (it holds the lease), or the store is away.
      return !(await repo.existsBy({ key }).catch(() => false));
    }
  }

  /** Waits for the lease holder's token, until its lease ends; undefined when none came. */
  private async waitForOther(
    key: string,
    usable: (t: Token | undefined) => boolean,
    leaseMs: number,
  ): Promise<Token | undefined> {
    const ds = await this.db();
    if (!ds) return undefined;
    const give = Date.now() + leaseMs + 1000;
    while (Date.now() < give) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      const row = await ds
        .getRepository(AuthToken)
        .findOneBy({ key })
        .catch(() => null);
      if (!row) return undefined;
      if (row.sealed) {
        try {
          const token = JSON.parse(this.ring.open(row.sealed, aad(key))) as Token;
          if (usable(token)) return token;
        } catch {
          /* a row sealed with another key: fetch our own */
        }
      }
      if (!row.leaseUntil || row.leaseUntil.getTime() < Date.now()) return undefined;
    }
    return undefined;
  }

  private async release(key: string): Promise<void> {
    const ds = await this.db();
    await ds
      ?.getRepository(AuthToken)
      .update({ key }, { leaseUntil: null })
      .catch(() => undefined);
  }

  private async writeRow(key: string, owner: TokenOwner, token: Token): Promise<void> {
    const ds = await this.db();
    if (!ds) return;
    const row = {
      key,
      ...owner,
      sealed: this.ring.seal(JSON.stringify(token), aad(key)),
      expiresAt: token.expiresAtMs === undefined ? null : new Date(token.expiresAtMs),
      leaseUntil: null,
      updatedAt: new Date(),
    };
    await ds
      .getRepository(AuthToken)
      .upsert(row, ['key'])
      .catch(() => undefined);
  }
}
