/**
 * The OAuth 2.0 token cache shared through the store (src/auth/token-cache.ts): two caches standing
 * for two processes (or load threads) on one SQLite store, in the interleavings that could make a
 * second token request: one asks while the other fetches (it waits for the lease holder's token), and
 * one whose read of the row came just before the other stored its token and released its lease (it
 * reads again once it holds the lease).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { migrate, openDataSource } from '../../../src/store/data-source';
import { TokenCache } from '../../../src/auth/token-cache';
import type { Token } from '../../../src/auth/oauth2';
import { KeyRing, parseSecretKeys } from '../../../src/secrets/keyring';

const ring = new KeyRing(parseSecretKeys('t:xICCnYsGY8lXexMaRybtFWJL48eq8F6LoG30+0PC6f8='));
const owner = { workspaceId: 'ws_1', profileId: 'aup_1' };

describe('the token cache shared through the store', () => {
  let dir: string;
  let ds: DataSource;
  let fetches: number;
  const fetch = async (): Promise<Token> => {
    fetches += 1;
    await new Promise((r) => setTimeout(r, 100));
    return {
      accessToken: `token-${fetches}`,
      tokenType: 'Bearer',
      obtainedAtMs: Date.now(),
      expiresAtMs: Date.now() + 3_600_000,
    };
  };
  const cache = () => new TokenCache(ring, async () => ds);

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-token-cache-'));
    ds = await openDataSource({ type: 'sqlite', file: path.join(dir, 'assay.db') });
    await migrate(ds);
  });
  beforeEach(() => (fetches = 0));
  after(async () => {
    await ds?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('two processes asking at once make one token request: the second waits for the lease holder’s token', async () => {
    const [a, b] = await Promise.all([
      cache().get('k1', owner, fetch, { leaseMs: 5_000 }),
      cache().get('k1', owner, fetch, { leaseMs: 5_000 }),
    ]);
    expect(fetches).to.equal(1);
    expect(a.token.accessToken).to.equal(b.token.accessToken);
    expect([a.fetched, b.fetched].sort()).to.deep.equal([false, true]);
  });

  it('a process whose read came just before the other stored its token reads again once it holds the lease', async () => {
    const late = cache();
    // Its first read of the row happens before the other process has stored anything.
    const real = (late as unknown as { readRow(key: string): Promise<Token | undefined> }).readRow.bind(late);
    let reads = 0;
    (late as unknown as { readRow(key: string): Promise<Token | undefined> }).readRow = async (key: string) => {
      reads += 1;
      if (reads === 1) {
        const first = await real(key);
        // …then the other process fetches, stores and releases its lease.
        await cache().get('k2', owner, fetch, { leaseMs: 5_000 });
        return first;
      }
      return real(key);
    };
    const got = await late.get('k2', owner, fetch, { leaseMs: 5_000 });
    expect(fetches).to.equal(1);
    expect(got).to.deep.include({ fetched: false });
    expect(got.token.accessToken).to.equal('token-1');
  });
});
