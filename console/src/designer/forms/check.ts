/**
 * The JSONata check of expression fields, as they are typed: `jsonata(expr)` parses the expression
 * (it does not evaluate it) and throws on a syntax error with a `code`, a `message` and the
 * `position` (1-based, the character after which the parser stopped). The `jsonata` package is
 * loaded on first use ({@link loadJsonata}), so the console's first page does not carry it. Pure
 * otherwise (no DOM): unit tested in node.
 */

type Jsonata = (expression: string) => unknown;

let parser: Jsonata | undefined;
let loading: Promise<Jsonata> | undefined;

/** Loads the `jsonata` package once (its own chunk in the console bundle); later calls answer at once. */
export function loadJsonata(): Promise<Jsonata> {
  if (parser) return Promise.resolve(parser);
  loading ??= import('jsonata').then(
    (m) => {
      const mod = m as unknown as { default?: Jsonata } & Jsonata;
      parser = typeof mod.default === 'function' ? mod.default : mod;
      return parser;
    },
    (err: unknown) => {
      loading = undefined;
      throw err;
    },
  );
  return loading;
}

/** The parser, when {@link loadJsonata} has finished (undefined before). */
export function loadedJsonata(): Jsonata | undefined {
  return parser;
}

/** A syntax error of an expression: the parser's message, its code (`S0202`…), and where (0-based offset). */
export interface ExpressionProblem {
  message: string;
  code?: string;
  /** 0-based offset into the text where the parser stopped (the error's `position` − 1). */
  offset?: number;
}

/**
 * The syntax error of `expression` by `parse` (jsonata), or null when it parses. An empty
 * expression is no syntax error (required fields are the server's to refuse).
 */
export function checkExpression(parse: Jsonata, expression: string): ExpressionProblem | null {
  if (expression.trim() === '') return null;
  try {
    parse(expression);
    return null;
  } catch (err) {
    const e = err as { message?: string; code?: string; position?: number };
    const offset =
      typeof e.position === 'number' ? Math.max(0, Math.min(expression.length, e.position - 1)) : undefined;
    return {
      message: e.message ?? String(err),
      ...(e.code ? { code: e.code } : {}),
      ...(offset !== undefined ? { offset } : {}),
    };
  }
}
