/**
 * The workspaces' mock settings as the mock service reads them (`GET/PUT /v1/mock-settings`,
 * api/routes/mock-settings.ts; the `mock_settings` table): cached per workspace so that a mock
 * request reads nothing from the store while its workspace's settings are fresh. A change through
 * this process is seen at once (the route calls `MockEngine.invalidate`, which forgets them here);
 * a change through another process within `revalidateMs`.
 */
import type { DataSource } from 'typeorm';
import { MockSettings } from '../store/entities';
import type { MockSettingsView } from '../domain/mocks';
import type { DatabaseTimeouts } from '../config';
import { withStoreBounds } from '../store/bounds';

/** A workspace without a row: the proxy off, no seed. */
export const DEFAULT_MOCK_SETTINGS: MockSettingsView = Object.freeze({ proxy: null, seed: null });

/** The view of a row (or of none). */
export function settingsView(row: MockSettings | null): MockSettingsView {
  if (!row) return DEFAULT_MOCK_SETTINGS;
  return {
    proxy: row.proxyUrl && row.proxyMode ? { url: row.proxyUrl, mode: row.proxyMode } : null,
    seed: row.seed,
  };
}

/** The engine's settings stage (src/mock/engine.ts `MockStages.settings`). */
export class MockSettingsCache {
  private readonly cache = new Map<string, { view: MockSettingsView; at: number }>();
  private readonly pending = new Map<string, Promise<MockSettingsView>>();
  private readonly revalidateMs: number;
  private readonly storeTimeouts?: DatabaseTimeouts;

  /**
   * `revalidateMs`: how long cached settings are trusted (the engine's `revalidateMs`);
   * `storeTimeouts`: the bounds of the read (src/store/bounds.ts), as the engine's design reads.
   */
  constructor(
    private readonly dataSource: DataSource,
    options: { revalidateMs?: number; storeTimeouts?: DatabaseTimeouts } = {},
  ) {
    this.revalidateMs = options.revalidateMs ?? 2000;
    this.storeTimeouts = options.storeTimeouts;
  }

  /** The settings: synchronously while cached and fresh, else a promise of them (one read per workspace at a time). */
  get(workspaceId: string): MockSettingsView | Promise<MockSettingsView> {
    const hit = this.cache.get(workspaceId);
    if (hit && Date.now() - hit.at < this.revalidateMs) return hit.view;
    let read = this.pending.get(workspaceId);
    if (!read) {
      const query = () => this.dataSource.getRepository(MockSettings).findOneBy({ workspaceId });
      read = (this.storeTimeouts ? withStoreBounds(this.storeTimeouts, query) : query())
        .then((row) => {
          const view = settingsView(row);
          if (this.pending.get(workspaceId) === read) this.cache.set(workspaceId, { view, at: Date.now() });
          return view;
        })
        .finally(() => {
          if (this.pending.get(workspaceId) === read) this.pending.delete(workspaceId);
        });
      this.pending.set(workspaceId, read);
    }
    return read;
  }

  /**
   * The workspace's seed as last read, synchronously (the chaos stage's `workspaceSeed`: the engine
   * reads the settings at the start of every request, so they are cached by then); undefined when
   * not read yet.
   */
  seedOf(workspaceId: string): number | null | undefined {
    return this.cache.get(workspaceId)?.view.seed;
  }

  invalidate(workspaceId: string): void {
    this.cache.delete(workspaceId);
    this.pending.delete(workspaceId);
  }
}
