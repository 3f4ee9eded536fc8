/**
 * The workspace's mock settings (docs/mocks.md "Proxy: validate and record"; src/domain/mocks.ts
 * `MockSettingsView`):
 *
 *   GET /v1/mock-settings     → {proxy: {url, mode} | null, seed: integer | null}
 *   PUT /v1/mock-settings     {proxy?: {url, mode: "validate"|"record"} | null, seed?: integer | null}
 *                             replaces them (an absent field is null: the proxy off, no seed) → 200
 *
 * `proxy.url` is an absolute `http:` or `https:` base URL without credentials, query or fragment
 * (400 `validation-failed` naming `proxy.url`); a trailing `/` is dropped. Where it may point is
 * judged per request by the API process's address policy (the rules of API nodes,
 * docs/security.md "Address policy"): a refusal answers the mock's caller 502 `mock-proxy-failed`
 * naming the rule. The mock service of this process sees a change at once, other API processes
 * within `ASSAY_MOCK_REVALIDATE_MS`.
 */
import Router from '@koa/router';
import { MockSettings } from '../../src/store/entities';
import { settingsView } from '../../src/mock/settings';
import type { MockSettingsView } from '../../src/domain/mocks';
import { fieldError } from '../../src/problems';
import { invalid } from '../problem';
import { bodyValidator, jsonBody } from '../validation';
import type { ApiDeps, AppState } from '../context';

/** The body of `PUT /v1/mock-settings` (also shown by the OpenAPI document). */
export const MOCK_SETTINGS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    proxy: {
      type: ['object', 'null'],
      required: ['url', 'mode'],
      additionalProperties: false,
      properties: {
        url: { type: 'string', minLength: 1, maxLength: 2000 },
        mode: { enum: ['validate', 'record'] },
      },
    },
    seed: { type: ['integer', 'null'], minimum: 0, maximum: 2 ** 31 - 1 },
  },
} as const;

const validateSettings = bodyValidator<Partial<MockSettingsView>>(MOCK_SETTINGS_SCHEMA);

/** The proxy URL as stored, or why it cannot be. */
function proxyUrl(raw: string): string | { error: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { error: 'is not an absolute URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: 'must be an http: or https: URL' };
  if (url.username || url.password)
    return {
      error: 'must not carry credentials (they would be stored): the callers send theirs, and they are forwarded',
    };
  if (url.search || url.hash || raw.includes('?') || raw.includes('#'))
    return { error: "must not have a query or fragment: the request's path and query are appended to it" };
  return url.toString().replace(/\/+$/, '');
}

export function mockSettingsRouter({ dataSource, mocks }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  const repo = dataSource.getRepository(MockSettings);

  router.get('/mock-settings', async (ctx) => {
    ctx.body = settingsView(await repo.findOneBy({ workspaceId: ctx.state.caller.workspaceId }));
  });

  router.put('/mock-settings', async (ctx) => {
    const input = validateSettings(jsonBody(ctx));
    let url: string | null = null;
    if (input.proxy) {
      const checked = proxyUrl(input.proxy.url);
      if (typeof checked !== 'string') throw invalid([fieldError(['proxy', 'url'], checked.error)]);
      url = checked;
    }
    const workspaceId = ctx.state.caller.workspaceId;
    const row = repo.create({
      workspaceId,
      proxyUrl: url,
      proxyMode: input.proxy ? input.proxy.mode : null,
      seed: input.seed ?? null,
      updatedAt: new Date(),
    });
    await repo.upsert(row, ['workspaceId']);
    mocks.invalidate(workspaceId);
    ctx.body = settingsView(row);
  });

  return router;
}
