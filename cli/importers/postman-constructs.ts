/**
 * Constructs of a Postman Collection v2.0/v2.1 (the schema's collection, folder, item and request
 * fields) that the import does not carry over, found by walking the collection as written, so the
 * report names each one with where it is (docs/import-postman.md "Compatibility"). The request,
 * auth and script mappings note their own losses (cli/importers/postman.ts); this module covers
 * the rest of the schema (`protocolProfileBehavior` and per-request auth are
 * cli/importers/postman-request.ts's, which reports what of them it leaves out):
 *
 * - `request.proxy`, `request.certificate`, request-level `variable`s, scripts given by `src`
 *   (a URL) instead of `exec`, scripts in another language than JavaScript;
 * - dynamic variables in a request other than `{{$guid}}`, `{{$randomUUID}}`, `{{$timestamp}}`,
 *   `{{$isoTimestamp}}` and `{{$randomInt}}` (Postman's faker ones, `{{$randomEmail}}` …), which
 *   stay as written;
 * - documentation: descriptions of requests and subfolders, saved responses (examples): listed as
 *   ignored, since they do not change what a run does.
 */
/** One finding: where (`Folder / Request`, or the collection) and what (cli/importers/postman.ts `ImportNote`). */
interface ImportNote {
  at: string;
  message: string;
}

/** What {@link findConstructs} found. */
export interface FoundConstructs {
  /** Not carried over: changes what a run does (`--strict` refuses the import). */
  untranslated: ImportNote[];
  /** Carried over with a difference the user should know. */
  warnings: ImportNote[];
  /** Documentation only, not carried over (does not change a run). */
  ignored: ImportNote[];
}

/** Dynamic variables both Assay's templates (src/domain/templating.ts) and the `pm` library fill. */
const DYNAMIC = new Set(['$guid', '$randomUUID', '$timestamp', '$isoTimestamp', '$randomInt']);

interface RawEvent {
  listen?: string;
  disabled?: boolean;
  script?: { exec?: unknown; src?: unknown; type?: string };
}
interface RawItem {
  name?: string;
  description?: unknown;
  item?: RawItem[];
  request?: unknown;
  response?: unknown[];
  event?: RawEvent[] | RawEvent;
  variable?: Array<{ key?: string; disabled?: boolean }>;
}
interface RawRequest {
  description?: unknown;
  proxy?: unknown;
  certificate?: unknown;
}

function hasText(description: unknown): boolean {
  if (typeof description === 'string') return description.trim() !== '';
  if (description && typeof description === 'object') {
    const content = (description as { content?: unknown }).content;
    return typeof content === 'string' && content.trim() !== '';
  }
  return false;
}

/**
 * Walks `collection` (a v2.0/v2.1 collection as parsed JSON) and lists what the import leaves out
 * beyond the request, auth and script mappings. Paths are `Folder / Sub / Request` (the collection
 * itself is named by `collectionName`).
 */
export function findConstructs(collection: unknown, collectionName: string): FoundConstructs {
  const found: FoundConstructs = { untranslated: [], warnings: [], ignored: [] };
  const doc = collection as RawItem & { info?: { description?: unknown } };
  const describedRequests: string[] = [];
  const describedFolders: string[] = [];
  const withExamples: string[] = [];

  const events = (at: string, list: RawEvent[] | RawEvent | undefined) => {
    // The SDK takes one event object where the schema has a list; so does this walk.
    for (const e of Array.isArray(list) ? list : list ? [list] : []) {
      if (!e || e.disabled || !e.script) continue;
      const exec = e.script.exec;
      const hasExec = Array.isArray(exec)
        ? exec.join('').trim() !== ''
        : typeof exec === 'string' && exec.trim() !== '';
      if (!hasExec && typeof e.script.src === 'string' && e.script.src)
        found.untranslated.push({
          at,
          message: `${e.listen ?? 'event'} script given by src (${e.script.src}) is not imported: paste the code into the collection`,
        });
      if (hasExec && e.script.type && !/javascript/i.test(e.script.type))
        found.untranslated.push({
          at,
          message: `${e.listen ?? 'event'} script of type ${e.script.type} is not imported (JavaScript only)`,
        });
    }
  };

  events(collectionName, doc.event);

  const walk = (items: RawItem[] | undefined, names: string[]) => {
    for (const item of items ?? []) {
      if (!item || typeof item !== 'object') continue;
      const here = [...names, String(item.name ?? '')];
      const at = here.join(' / ');
      events(at, item.event);
      if (Array.isArray(item.item)) {
        // A top-level folder's description becomes its test case's; deeper ones have nowhere to go.
        if (names.length > 0 && hasText(item.description)) describedFolders.push(at);
        walk(item.item, here);
        continue;
      }
      const request = (typeof item.request === 'object' && item.request ? item.request : {}) as RawRequest;
      if (hasText(item.description) || hasText(request.description)) describedRequests.push(at);
      if (Array.isArray(item.response) && item.response.length) withExamples.push(at);
      const variables = (Array.isArray(item.variable) ? item.variable : [])
        .filter((v) => v && v.key && !v.disabled)
        .map((v) => v.key!);
      if (variables.length)
        found.untranslated.push({ at, message: `request variables (${variables.join(', ')}) are not imported` });
      if (request.proxy !== undefined && request.proxy !== null)
        found.untranslated.push({ at, message: 'request proxy settings are not imported' });
      if (request.certificate !== undefined && request.certificate !== null)
        found.untranslated.push({ at, message: 'request client certificate is not imported' });
      const dynamic = new Set<string>();
      for (const m of JSON.stringify(item.request ?? '').matchAll(/\{\{\s*(\$[A-Za-z0-9_]+)\s*\}\}/g))
        if (!DYNAMIC.has(m[1]!)) dynamic.add(m[1]!);
      if (dynamic.size)
        found.untranslated.push({
          at,
          message: `dynamic variables ${[...dynamic].map((d) => `{{${d}}}`).join(', ')} are not filled (Assay has {{$guid}}, {{$randomUUID}}, {{$timestamp}}, {{$isoTimestamp}}, {{$randomInt}}); they are sent as written`,
        });
    }
  };
  walk(doc.item, []);

  const list = (paths: string[]) =>
    paths.length <= 5 ? paths.join('; ') : `${paths.slice(0, 5).join('; ')} and ${paths.length - 5} more`;
  if (describedRequests.length)
    found.ignored.push({
      at: collectionName,
      message: `descriptions of ${describedRequests.length} request(s) (${list(describedRequests)}): Assay's nodes have no description`,
    });
  if (describedFolders.length)
    found.ignored.push({
      at: collectionName,
      message: `descriptions of ${describedFolders.length} subfolder(s) (${list(describedFolders)}): only top-level folders become test cases with a description`,
    });
  if (withExamples.length)
    found.ignored.push({
      at: collectionName,
      message: `saved responses (examples) of ${withExamples.length} request(s) (${list(withExamples)})`,
    });
  return found;
}
