/**
 * What results show of an API node's `auth` (src/domain/types.ts `RequestAuth`): its fields, the
 * secrets as `***`. Pure: the workflow builds node results with it (src/flow/api-node.ts); the
 * signing itself is src/net/request-auth.ts, in the activity.
 */
import type { RequestAuth, RequestAuthType } from './types';

/** The fields of each scheme that hold secrets. */
export const AUTH_SECRET_FIELDS: { readonly [T in RequestAuthType]: readonly string[] } = {
  digest: ['password'],
  oauth1: ['consumerSecret', 'tokenSecret'],
  hawk: ['key'],
  awsv4: ['secretAccessKey', 'sessionToken'],
};

/** `auth` as results show it: every field as text, the secrets (whatever their value) as `***`. */
export function maskedAuth(auth: RequestAuth): Record<string, string> {
  const secret = AUTH_SECRET_FIELDS[auth.type] ?? [];
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(auth)) {
    if (value === undefined) continue;
    out[name] = secret.includes(name) ? '***' : String(value);
  }
  return out;
}
