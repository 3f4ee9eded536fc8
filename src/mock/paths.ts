/**
 * Paths of API designs: `/users/{userId}/orders`. A parameter is a whole segment `{name}` (spec
 * "Mock service behavior" 5); its name is an identifier, used once per path.
 */

export interface ParsedPath {
  /** The path as stored: one leading slash, no trailing slash (except the root), no empty segments. */
  path: string;
  /** Parameter names in order. */
  params: string[];
  /** The path with parameter names blanked (`/users/{}/orders`): the route's shape. */
  routeKey: string;
  /** The same path in find-my-way's syntax (`/users/:userId/orders`). */
  routerPath: string;
}

const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]{0,63})\}$/;

/** Parses a design path. @returns the parsed path, or a message saying what is wrong. */
export function parsePath(raw: string): ParsedPath | { error: string } {
  if (!raw.startsWith('/')) return { error: 'must start with /' };
  if (/[?#]/.test(raw)) return { error: 'must not contain a query string or fragment' };
  const segments = raw.split('/').filter((s) => s.length > 0);
  // RFC 3986 §5.2.4: clients and proxies remove dot segments (also written %2E) before sending,
  // so a design path holding one could never be called as written.
  const dot = segments.find((s) => /^(\.|%2e){1,2}$/i.test(s));
  if (dot !== undefined)
    return { error: `must not contain the dot segment "${dot}" (. or ..): clients remove them (RFC 3986 §5.2.4)` };
  const params: string[] = [];
  const shape: string[] = [];
  const router: string[] = [];
  for (const segment of segments) {
    const m = PARAM.exec(segment);
    if (m) {
      if (params.includes(m[1]!)) return { error: `uses the parameter {${m[1]}} twice` };
      params.push(m[1]!);
      shape.push('{}');
      router.push(`:${m[1]}`);
    } else {
      if (/[{}]/.test(segment))
        return { error: `segment "${segment}": a parameter must be a whole segment such as {userId}` };
      if (/[:*]/.test(segment)) return { error: `segment "${segment}" may not contain : or *` };
      shape.push(segment);
      // find-my-way reads ':' and '*' as syntax; literal segments never contain them (checked above).
      router.push(segment);
    }
  }
  const join = (parts: string[]) => `/${parts.join('/')}`;
  return { path: join(segments.map((s) => s)), params, routeKey: join(shape), routerPath: join(router) };
}
