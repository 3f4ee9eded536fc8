/**
 * "Paste cURL" (docs/console.md "The designer"): a curl command line to an API node. Reads the command with
 * the local requests' importer (console/src/local/curl.ts `parseCurl`: its flags, quoting and
 * warnings) and turns it into a node's request as "From a local request" does (./local.ts
 * `localRequestToNode`), its credentials moved into variables. Pure: compiled by the root tsconfig too.
 */
import { headerCredential } from '../../../../src/importers/curl';
import { CurlError, parseCurl } from '../../local/curl';
import type { LocalRequest } from '../../local/request';
import { localRequestToNode } from './local';
import { STATUS_2XX, nodeIdFor, nodeNameFor, type ApiNode, type WayInOptions } from './node';

/** Options of {@link curlToNode}. */
export interface CurlToNodeOptions extends WayInOptions {
  /** What a relative URL (`/users`) is joined to: `{{base}}` by default (the environment's base URL, docs/flows.md). */
  origin?: string;
}

/** A credential of the command, moved out of the node into a variable. */
export interface CurlSecret {
  /** The variable the node's header names (`{{token}}`). */
  variable: string;
  /** The header it came from. */
  header: string;
  /** The value, for the user to keep in an environment (as a secret, when 4 characters or more). */
  value: string;
}

/** A node from a curl command line, with what the importer could not take over (shown to the user). */
export interface CurlNode {
  node: ApiNode;
  warnings: string[];
  /** Credentials taken out of the headers (`-H 'Authorization: …'`, `-u`, `-b`, API keys): the node names their variables. */
  secrets: CurlSecret[];
}

/**
 * The API node a curl command line sends: method, URL (relative ones joined to `{{base}}`),
 * headers, body (JSON as its value, a form URL-encoded, text as is, `-F` text parts as
 * `multipart`; `-F name=@file` parts are left out with a warning: a page cannot read the files a
 * command names), one assertion: any 2xx status. Credentials never stay in the node: each
 * credential header's value (`Authorization` from `-H` or `-u`, `Cookie` from `-b`, API key and
 * token headers; the rule of `assay import curl`, src/importers/curl.ts `headerCredential`) becomes
 * `{{variable}}`, and `secrets` lists the values for the user to keep in an environment.
 * `{error}` when the text is not a curl command or names no URL; the message is the user's to read.
 */
export function curlToNode(text: string, options: CurlToNodeOptions = {}): CurlNode | { error: string } {
  if (!text.trim()) return { error: 'Paste a curl command: it should start with "curl".' };
  let imported;
  try {
    imported = parseCurl(text);
  } catch (err) {
    if (err instanceof CurlError) return { error: err.message };
    throw err;
  }
  const warnings = [...imported.warnings];
  const multipart = imported.request.multipart.filter((p) => {
    if (p.kind !== 'file') return true;
    warnings.push(
      `-F ${p.name}=@${p.fileName ?? '…'}: a page cannot read the files a command names; add the part with its file in the node's Body tab`,
    );
    return false;
  });
  const secrets: CurlSecret[] = [];
  const headers = imported.request.headers.map((h) => {
    const credential = h.enabled ? headerCredential(h.name, h.value) : undefined;
    if (!credential) return h;
    let variable = credential.variable;
    for (let i = 2; secrets.some((s) => s.variable === variable && s.value !== credential.secret); i++)
      variable = `${credential.variable}${i}`;
    if (!secrets.some((s) => s.variable === variable))
      secrets.push({ variable, header: h.name, value: credential.secret });
    return { ...h, value: `${credential.scheme ? `${credential.scheme} ` : ''}{{${variable}}}` };
  });
  const local: LocalRequest = {
    ...imported.request,
    headers,
    // Only file parts: the node starts without a body, its parts to be added in the Body tab.
    bodyKind: imported.request.bodyKind === 'multipart' && multipart.length === 0 ? 'none' : imported.request.bodyKind,
    multipart: multipart.map((p) => ({ ...p, kind: 'text' as const })),
    id: '',
    name: '',
    group: null,
    relay: false,
    createdAt: '',
    updatedAt: '',
  };
  const made = localRequestToNode(local, { origin: options.origin ?? '{{base}}', taken: options.taken });
  if ('error' in made) return { error: made.error };
  const { method, url } = made.node.request;
  const node: ApiNode = {
    ...made.node,
    id: nodeIdFor(method, url, options.taken),
    name: nodeNameFor(method, url),
    assertions: [{ ...STATUS_2XX }],
  };
  return { node, warnings, secrets };
}
