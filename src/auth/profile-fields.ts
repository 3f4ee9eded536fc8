/**
 * The fields of an auth profile (docs/auth.md; src/domain/auth-profiles.ts) on their way in, at
 * rest and out:
 *
 * | where | literal secret (`token`, `password`, `value`, `clientSecret`, `refreshToken`) | a `{{variable}}` template, any other field |
 * |---|---|---|
 * | input | the value; `"***"` keeps the stored one | as written |
 * | at rest | sealed with the key ring, AAD `assay-auth-profile:<id>:<field>` | as written |
 * | answers | `"***"` | as written |
 *
 * {@link profileFieldErrors} checks a profile's fields by type, naming the field at fault.
 */
import {
  AUTH_PROFILE_SECRET_FIELDS,
  AUTH_PROFILE_TYPES,
  OAUTH2_GRANTS,
  type AuthProfileType,
  type FrozenAuthProfile,
} from '../domain/auth-profiles';
import { fieldError, type FieldError } from '../problems';
import { KeyRing } from '../secrets/keyring';
import { rememberSecrets } from '../secrets/mask';

/** What a masked secret reads in answers. */
export const MASKED = '***';

/** The additional authenticated data of a sealed field: the profile's id and the field's name. */
export function profileFieldAad(profileId: string, field: string): string {
  return `assay-auth-profile:${profileId}:${field}`;
}

/** Whether `value` is only a `{{variable}}` template (stored and answered as written). */
export function isTemplateOnly(value: string): boolean {
  return /^\s*\{\{\s*[^{}]+\s*\}\}\s*$/.test(value);
}

/** The fields each type has: required, optional. */
export const PROFILE_FIELDS: { readonly [T in AuthProfileType]: { required: string[]; optional: string[] } } = {
  bearer: { required: ['token'], optional: [] },
  basic: { required: ['username', 'password'], optional: [] },
  apiKey: { required: ['name', 'value', 'in'], optional: [] },
  oauth2: {
    required: ['grant', 'tokenUrl', 'clientId'],
    optional: ['clientSecret', 'scopes', 'audience', 'clientAuthentication', 'username', 'password', 'refreshToken'],
  },
};

const TEMPLATE_OR_URL = /^(?:https?:\/\/[^\s/?#]+[^\s]*|\s*\{\{[^{}]+\}\}.*)$/i;

/**
 * Field errors of a profile's `type` and fields (the request body's own names, e.g. `tokenUrl`):
 * unknown or missing fields, `tokenUrl` neither an absolute http(s) URL nor starting with a
 * template, `grant` not one of the three, `in` not header/query, the fields a grant needs
 * (`password`: username and password; `refresh_token`: refreshToken). No message repeats a value.
 */
export function profileFieldErrors(type: unknown, fields: Record<string, unknown>): FieldError[] {
  if (typeof type !== 'string' || !(AUTH_PROFILE_TYPES as readonly string[]).includes(type))
    return [fieldError(['type'], `must be one of ${AUTH_PROFILE_TYPES.join(', ')}`)];
  const shape = PROFILE_FIELDS[type as AuthProfileType];
  const errors: FieldError[] = [];
  for (const name of Object.keys(fields))
    if (!shape.required.includes(name) && !shape.optional.includes(name))
      errors.push(fieldError([name], `is not a field of a ${type} profile`));
  for (const name of shape.required)
    if (fields[name] === undefined || fields[name] === '') errors.push(fieldError([name], 'is required'));
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'scopes') {
      if (!Array.isArray(value) || value.some((s) => typeof s !== 'string' || s === '' || /\s/.test(s)))
        errors.push(fieldError([name], 'must be a list of scope names (no spaces inside one)'));
    } else if (typeof value !== 'string') errors.push(fieldError([name], 'must be a string'));
    else if (value.length > 4096) errors.push(fieldError([name], 'must be at most 4096 characters'));
  }
  if (errors.length) return errors;
  if (type === 'apiKey' && fields.in !== 'header' && fields.in !== 'query')
    errors.push(fieldError(['in'], 'must be header or query'));
  if (type === 'oauth2') {
    if (!(OAUTH2_GRANTS as readonly string[]).includes(fields.grant as string))
      errors.push(fieldError(['grant'], `must be one of ${OAUTH2_GRANTS.join(', ')}`));
    if (!TEMPLATE_OR_URL.test(fields.tokenUrl as string))
      errors.push(fieldError(['tokenUrl'], 'must be an absolute http(s) URL or start with a {{variable}} template'));
    if (
      fields.clientAuthentication !== undefined &&
      fields.clientAuthentication !== 'basic' &&
      fields.clientAuthentication !== 'body'
    )
      errors.push(fieldError(['clientAuthentication'], 'must be basic or body (RFC 6749 §2.3.1)'));
    if (fields.grant === 'password')
      for (const name of ['username', 'password'])
        if (!fields[name]) errors.push(fieldError([name], 'is required by the password grant'));
    if (fields.grant === 'refresh_token' && !fields.refreshToken)
      errors.push(fieldError(['refreshToken'], 'is required by the refresh_token grant'));
  }
  return errors;
}

/**
 * The fields for storage: literal secrets sealed (a `"***"` keeps the sealed value of `stored`,
 * sealed again when its key is stale). @returns the fields, or the errors of `"***"` with nothing to keep.
 */
export function sealProfileFields(
  profileId: string,
  fields: Record<string, unknown>,
  ring: KeyRing,
  stored: Record<string, unknown> = {},
): { fields: Record<string, unknown>; errors: FieldError[] } {
  const out: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (!AUTH_PROFILE_SECRET_FIELDS.includes(name) || typeof value !== 'string' || isTemplateOnly(value)) {
      out[name] = value;
      continue;
    }
    const aad = profileFieldAad(profileId, name);
    if (value === MASKED) {
      const kept = stored[name];
      if (!KeyRing.isSealed(kept))
        errors.push(
          fieldError([name], `is "${MASKED}" (keep the stored value) but none is stored; send the value itself`),
        );
      else out[name] = ring.isStale(kept) ? ring.seal(ring.open(kept, aad), aad) : kept;
      continue;
    }
    out[name] = ring.seal(value, aad);
    rememberSecrets([value]);
  }
  return { fields: out, errors };
}

/** The fields as answered: sealed secrets as `"***"`. */
export function maskProfileFields(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, KeyRing.isSealed(v) ? MASKED : v]));
}

/**
 * A profile's fields with its sealed secrets opened (the activity, the API's "fetch a token now").
 * @throws KeyRingError when one cannot be opened. The opened values are added to this process's log masker.
 */
export function openProfileFields(profile: FrozenAuthProfile, ring: KeyRing): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const opened: string[] = [];
  for (const [name, value] of Object.entries(profile.config)) {
    if (KeyRing.isSealed(value)) {
      const plain = ring.open(value, profileFieldAad(profile.id, name));
      out[name] = plain;
      opened.push(plain);
    } else out[name] = value;
  }
  rememberSecrets(opened);
  return out;
}
