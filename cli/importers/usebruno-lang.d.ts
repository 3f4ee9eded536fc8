/**
 * The part of `@usebruno/lang` (Bruno's own `.bru` parser, MIT; no types of its own) the Bruno
 * importer uses (cli/importers/bruno.ts). Each function throws an Error whose message starts
 * `Line N, col M:` when the text does not parse.
 */
declare module '@usebruno/lang' {
  /** A request file (`meta`, `get`/`post`/…, `params:*`, `headers`, `body:*`, `auth:*`, `vars:*`, `assert`, `script:*`, `tests`, `settings`, `docs`). */
  export function bruToJsonV2(text: string): Record<string, unknown>;
  /** `collection.bru` or a `folder.bru` (`meta`, `headers`, `auth`, `vars:*`, `script:*`, `tests`, `docs`). */
  export function collectionBruToJson(text: string): Record<string, unknown>;
  /** An environment file (`vars`, `vars:secret`): `{variables: [{name, value, enabled, secret}]}`. */
  export function bruToEnvJsonV2(text: string): { variables?: unknown[] };
}
