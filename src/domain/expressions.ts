/**
 * JSONata evaluation that is safe inside Temporal's workflow sandbox.
 *
 * Two hazards of JSONata in a workflow (../shared/research/temporal.md §2.4):
 * - it throws plain objects (`{code, message, position}`), not `Error`s; uncaught, they fail the
 *   workflow task forever instead of failing the node;
 * - its `timeout` option reads `Date.now()`, which is frozen during a workflow activation, so a
 *   runaway expression never times out.
 *
 * So every evaluation here is wrapped: errors become {@link ExpressionError}, and a step budget
 * counted through JSONata's `__evaluate_entry` hook stops runaway expressions. The count is
 * deterministic (same expression, same input, same count), so a replay takes the same path.
 *
 * Measured: a step costs about 0.7 µs in plain Node but about 140 µs inside the workflow sandbox
 * (every `await` passes through its async-context tracking). So workflows evaluate with
 * {@link WORKFLOW_LIMITS} (2,000 steps, about 0.3 s at worst, far above what ordinary expressions
 * need), and an expression that needs more is evaluated again in a local activity with
 * {@link ACTIVITY_LIMITS}, where a wall-clock timeout works too (workflows/workflow-port.ts).
 *
 * Regex literals (`$match`, `$replace`, `$contains`, `$split`, `~>`) run on RE2 through JSONata's
 * `RegexEngine` option ({@link LinearRegExp}): linear in the input, so no pattern can stall the
 * thread; {@link checkExpression} refuses literals RE2 cannot run.
 *
 * Pure module: no I/O, no Node built-ins (imported by workflow code).
 */
import jsonata from 'jsonata';
import { checkRegex, LinearRegExp } from './regex';

/** Limits on one evaluation. Defaults bound an evaluation to well under a second on a 2-core machine. */
export interface EvaluationLimits {
  /** Evaluation steps (JSONata AST node visits) before the evaluation is stopped. */
  maxSteps: number;
  /** Maximum nesting depth of evaluation (recursion). */
  maxDepth: number;
  /** Maximum length of a sequence JSONata builds. */
  maxSequence: number;
  /** Wall-clock limit in ms (JSONata's own timeout; only meaningful outside a workflow). */
  timeoutMs?: number;
}

/** Limits inside a workflow: cheap, deterministic. */
export const WORKFLOW_LIMITS: EvaluationLimits = { maxSteps: 2_000, maxDepth: 500, maxSequence: 1_000_000 };
/** Limits in an activity, for the expressions that need more than {@link WORKFLOW_LIMITS}. */
export const ACTIVITY_LIMITS: EvaluationLimits = {
  maxSteps: 2_000_000,
  maxDepth: 500,
  maxSequence: 1_000_000,
  timeoutMs: 2_000,
};
export const DEFAULT_LIMITS = WORKFLOW_LIMITS;

/** Code of the error raised when the step budget runs out. */
export const BUDGET_CODE = 'ASSAY_BUDGET';

/** An expression that could not be compiled or evaluated. `code` is JSONata's error code or ASSAY_BUDGET. */
export class ExpressionError extends Error {
  constructor(
    message: string,
    readonly expression: string,
    readonly code: string,
    readonly position?: number,
  ) {
    super(message);
    this.name = 'ExpressionError';
  }
}

interface JsonataErrorShape {
  code?: string;
  message?: string;
  position?: number;
  token?: string;
}

function toExpressionError(err: unknown, expression: string): ExpressionError {
  if (err instanceof ExpressionError) return err;
  const e = (err ?? {}) as JsonataErrorShape;
  const code = typeof e.code === 'string' ? e.code : 'UNKNOWN';
  const detail = typeof e.message === 'string' ? e.message : String(err);
  const at = typeof e.position === 'number' ? ` at position ${e.position}` : '';
  return new ExpressionError(`${detail}${at} in expression "${expression}"`, expression, code, e.position);
}

const compiled = new Map<string, jsonata.Expression>();

function compile(expression: string, limits: EvaluationLimits): jsonata.Expression {
  const key = `${limits.maxSteps}/${limits.maxDepth}/${limits.maxSequence}/${limits.timeoutMs ?? 0}/${expression}`;
  let expr = compiled.get(key);
  if (!expr) {
    try {
      // `stack` and `sequence` are JSONata 2.x guardrails; `timeout` is deliberately not used (see above).
      // RegexEngine: regex literals (`$match(s, /a+/)`, `~> $replace(/x/, 'y')`) run on RE2, in linear time.
      expr = jsonata(expression, {
        stack: limits.maxDepth,
        sequence: limits.maxSequence,
        RegexEngine: LinearRegExp,
        ...(limits.timeoutMs ? { timeout: limits.timeoutMs } : {}),
      } as never);
    } catch (err) {
      throw toExpressionError(err, expression);
    }
    // The entry hook runs before every AST node is evaluated. Its counter lives on the evaluation's own
    // root frame (`environment.base`), so concurrent evaluations of one compiled expression do not share it.
    const maxSteps = limits.maxSteps;
    expr.assign(
      Symbol.for('jsonata.__evaluate_entry') as never,
      (_node: unknown, _input: unknown, environment: StepFrame) => {
        const base = environment.base;
        base.assaySteps = (base.assaySteps ?? 0) + 1;
        const meter = base.lookup(METER_BINDING) as StepMeter | undefined;
        if (meter) meter.steps += 1;
        if (base.assaySteps > maxSteps) {
          throw {
            code: BUDGET_CODE,
            message: `Expression stopped after ${maxSteps} evaluation steps (runaway loop or recursion?)`,
          };
        }
      },
    );
    if (compiled.size > 5000) compiled.clear();
    compiled.set(key, expr);
  }
  return expr;
}

/** The part of JSONata's evaluation frame the step hook uses. */
interface StepFrame {
  base: { assaySteps?: number; lookup(name: string): unknown };
}

/**
 * Counts the evaluation steps of the evaluations it is passed to (added up), so a workflow can
 * bound the work of one workflow task (workflows/workflow-port.ts). Deterministic like the step budget.
 */
export interface StepMeter {
  steps: number;
}

/** Name under which a {@link StepMeter} is bound for the step hook (not a documented variable). */
const METER_BINDING = '__assayStepMeter';

/**
 * Checks that `expression` parses. Returns null when it does, else the error (for API validation).
 */
export function checkExpression(expression: string): ExpressionError | null {
  let expr: jsonata.Expression;
  try {
    expr = compile(expression, DEFAULT_LIMITS);
  } catch (err) {
    return toExpressionError(err, expression);
  }
  // Regex literals run on RE2 (src/domain/regex.ts): refuse the ones it cannot run when the flow is saved.
  for (const { regex, position } of regexLiterals(expr.ast())) {
    const problem = checkRegex(regex.source, regex.flags);
    if (problem)
      return new ExpressionError(
        `regular expression /${regex.source}/ at position ${position}: ${problem} in expression "${expression}"`,
        expression,
        'ASSAY_REGEX',
        position,
      );
  }
  return null;
}

/** The regex literals of a parsed expression (JSONata AST nodes of type `regex`; their value is a RegExp). */
function regexLiterals(ast: unknown): Array<{ regex: RegExp; position: number }> {
  const found: Array<{ regex: RegExp; position: number }> = [];
  const seen = new Set<object>();
  const walk = (node: unknown, depth: number): void => {
    if (!node || typeof node !== 'object' || seen.has(node) || depth > 10_000) return;
    seen.add(node);
    const n = node as { type?: unknown; value?: unknown; position?: unknown };
    if (n.type === 'regex' && typeof (n.value as RegExp | undefined)?.source === 'string')
      found.push({ regex: n.value as RegExp, position: typeof n.position === 'number' ? n.position : 0 });
    for (const v of Object.values(node))
      if (v && typeof v === 'object' && typeof (v as RegExp).source !== 'string') walk(v, depth + 1);
  };
  walk(ast, 0);
  return found;
}

/**
 * Evaluates a JSONata `expression` against `input`, with `bindings` as `$name` variables; the
 * steps it takes are added to `meter` when one is given.
 *
 * @returns the value (JSONata sequences are turned into plain arrays); `undefined` when nothing matched.
 * @throws ExpressionError on a parse error, an evaluation error, or when a limit is reached.
 */
export async function evaluateExpression(
  expression: string,
  input: unknown,
  bindings: Record<string, unknown> = {},
  limits: EvaluationLimits = DEFAULT_LIMITS,
  meter?: StepMeter,
): Promise<unknown> {
  const expr = compile(expression, limits);
  try {
    const result = await expr.evaluate(input, meter ? { ...bindings, [METER_BINDING]: meter } : bindings);
    return normalise(result);
  } catch (err) {
    throw toExpressionError(err, expression);
  }
}

/** JSONata returns arrays tagged as sequences and may return functions; make the value plain data. */
function normalise(value: unknown): unknown {
  if (typeof value === 'function') return undefined;
  if (Array.isArray(value)) return value.map(normalise);
  return value;
}

/**
 * JSONata's truthiness (`$boolean`): false for undefined, null, false, 0, '' and empty objects;
 * an array is true when any of its members is. Used for IF conditions, `while` and `breakCondition`.
 */
export function truthy(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.some(truthy);
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return Boolean(value);
}

/**
 * Node ids an expression reads through `nodes.<id>` (for "reference to nothing" checks when a
 * flow is saved). Returns [] when the expression does not parse.
 */
export function referencedNodeIds(expression: string): string[] {
  let ast: unknown;
  try {
    ast = jsonata(expression).ast();
  } catch {
    return [];
  }
  const ids = new Set<string>();
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(walk);
    const n = node as { type?: string; steps?: Array<{ type?: string; value?: unknown }> };
    if (
      n.type === 'path' &&
      n.steps &&
      n.steps[0]?.type === 'name' &&
      n.steps[0].value === 'nodes' &&
      n.steps[1]?.type === 'name'
    ) {
      ids.add(String(n.steps[1].value));
    }
    for (const v of Object.values(node)) if (v && typeof v === 'object') walk(v);
  };
  walk(ast);
  return [...ids];
}
