/**
 * Why a bundle could not be made. Every refusal of the bundler is a {@link BundleError} with a
 * stable code; the bundler's HTTP interface (api/bundler.ts) answers each as RFC 9457
 * problem+json with the status the problem catalogue (src/problems.ts) gives the code.
 */

/** The codes, each a 4xx answer (docs/bundler.md, "Errors"). */
export type BundleErrorCode =
  /** A URL (the entry, a redirect target or an import) resolves to a private or loopback address. 403. */
  | 'host-not-allowed'
  /** An import the bundler cannot fetch: another scheme (`data:`, `file:`), a `#subpath` import. 422. */
  | 'unsupported-import'
  /** An `import` of a Node built-in (`fs`, `node:path`): the sandbox has no Node APIs. 422. */
  | 'node-builtin'
  /** The origin could not be reached, or answered something other than 200, or redirected too often. 422. */
  | 'module-fetch-failed'
  /** A fetch took longer than the fetch timeout. 422. */
  | 'module-fetch-timeout'
  /** A URL answered HTML, CSS or another type that is not a script module. 422. */
  | 'module-not-javascript'
  /** One module is over the module size cap. 422. */
  | 'module-too-large'
  /** The fetched sources together, or the bundle made from them, are over their size cap. 422. */
  | 'bundle-too-large'
  /** The library needs more modules than the cap. 422. */
  | 'too-many-modules'
  /** A module does not parse. 422. */
  | 'module-syntax-error'
  /** A module uses top-level await, which a classic script cannot hold. 422. */
  | 'top-level-await'
  /** The whole bundle took longer than the build timeout. 422. */
  | 'bundle-timeout'
  /** esbuild refused the sources for another reason (its message is in `detail`). 422. */
  | 'bundle-failed';

/** A refusal with its code, a sentence for people, and fields for programs (`url`, `line`, …). */
export class BundleError extends Error {
  constructor(
    readonly code: BundleErrorCode,
    message: string,
    readonly extras: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'BundleError';
  }
}
