/**
 * Media types of OpenAPI `content` maps, shared by the mock import (src/mock/openapi.ts), the mock
 * engine (src/mock/engine.ts) and the contract tests (cli/importers/openapi.ts), so that a mock
 * serves the media type its contract test expects.
 */

type Json = Record<string, unknown>;

/**
 * The media type a mock serves and a contract test expects, of a `content` map: `application/json`
 * first, else a `…/…+json` or `…/json` type, else the first listed. Shared by the mock import and
 * cli/importers/openapi.ts so that both pick the same one.
 */
export function pickMedia(content: unknown): { type: string; media: Json } | undefined {
  if (!content || typeof content !== 'object') return undefined;
  const types = Object.keys(content as Json);
  const type =
    types.find((t) => /^application\/json\s*(;|$)/i.test(t)) ??
    types.find((t) => /[/+]json\s*(;|$)/i.test(t)) ??
    types[0];
  return type ? { type, media: ((content as Json)[type] ?? {}) as Json } : undefined;
}

/** True for JSON media types (`application/json`, `application/scim+json`, `…; charset=…`). */
export function isJsonMedia(type: string): boolean {
  return /^[^/]+\/(.+\+)?json\s*(;|$)/i.test(type);
}
