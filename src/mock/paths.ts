/**
 * Paths of API designs: `/users/{userId}/orders` (spec "Mock service behavior" 5). A parameter
 * `{name}` is a whole segment, or part of one followed by text starting with `.` or `-`
 * (`/Accounts/{Sid}.json`, `/near/{lat}-{lng}`, as OpenAPI descriptions such as Twilio's write
 * them; find-my-way ends a parameter's value there). Its name starts with a letter or `_`, then
 * letters, digits, `_`, `-` or `.` (`{subscription-id}`, `{api.version}`: OpenAPI allows any name),
 * used once per path. find-my-way ends a parameter's name at `-` or `.`, so such a name is routed
 * under a positional one (`:__p0`) and {@link ParsedPath.routerNames} maps it back.
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
  /**
   * Router parameter name → the parameter's name, for the names find-my-way cannot take
   * (`{subscription-id}` is routed as `:__p0`); absent when every name is routed as it is.
   */
  routerNames?: Record<string, string>;
}

/** Names find-my-way takes as they are (it ends a name at `-` or `.`). */
const ROUTER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const PARAM = /^\{([A-Za-z_][A-Za-z0-9_.-]{0,63})\}$/;
/** A parameter within a segment, and the text after it. */
const PARTIAL = /\{([A-Za-z_][A-Za-z0-9_.-]{0,63})\}/g;

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
  const routerNames: Record<string, string> = {};
  /** The router's name of parameter `name` (the next in order). */
  const routed = (name: string): string => {
    if (ROUTER_NAME.test(name)) return name;
    const positional = `__p${params.length}`;
    routerNames[positional] = name;
    return positional;
  };
  for (const segment of segments) {
    const m = PARAM.exec(segment);
    if (m) {
      if (params.includes(m[1]!)) return { error: `uses the parameter {${m[1]}} twice` };
      router.push(`:${routed(m[1]!)}`);
      params.push(m[1]!);
      shape.push('{}');
    } else if (/[{}]/.test(segment)) {
      if (/[:*]/.test(segment.replace(PARTIAL, '')))
        return { error: `segment "${segment}" may not contain : or * beside a parameter` };
      const parts = segment.split(PARTIAL); // literal, name, literal, name, …, literal
      const badText = parts.filter((_, i) => i % 2 === 0).find((t) => /[{}]/.test(t));
      if (badText !== undefined)
        return {
          error: `segment "${segment}": a parameter is written {name}, a letter or _ then letters, digits, _, - or .`,
        };
      const names: string[] = [];
      for (let i = 1; i < parts.length; i += 2) {
        const name = parts[i]!;
        const after = parts[i + 1]!;
        if (params.includes(name)) return { error: `uses the parameter {${name}} twice` };
        if (i + 2 < parts.length ? !/^[.-]/.test(after) : after !== '' && !/^[.-]/.test(after))
          return {
            error: `segment "${segment}": a parameter within a segment must be followed by text starting with . or - (as in {Sid}.json)`,
          };
        names.push(routed(name));
        params.push(name);
      }
      shape.push(parts.map((p, i) => (i % 2 ? '{}' : p)).join(''));
      router.push(parts.map((p, i) => (i % 2 ? `:${names[(i - 1) / 2]}` : p.replace(/:/g, '::'))).join(''));
    } else {
      if (segment.includes('*')) return { error: `segment "${segment}" may not contain *` };
      shape.push(segment);
      // find-my-way reads ':' as a parameter and '::' as a literal colon (`/v1/things:batchGet`,
      // Google's custom methods); '*' would be a wildcard (refused above).
      router.push(segment.replace(/:/g, '::'));
    }
  }
  const join = (parts: string[]) => `/${parts.join('/')}`;
  return {
    path: join(segments.map((s) => s)),
    params,
    routeKey: join(shape),
    routerPath: join(router),
    ...(Object.keys(routerNames).length ? { routerNames } : {}),
  };
}
