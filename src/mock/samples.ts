/**
 * Sample response data from a JSON Schema (spec "Mock definition": "sample response data can be
 * generated from them, either quickly or by an AI-based generator").
 *
 * - Quick: openapi-sampler (Redocly; deterministic, example-like values: `user@example.com`,
 *   honours `example`, `default`, `enum`, `format`, `allOf`, `$ref` into the document). Runs when
 *   a design is saved, never per request.
 * - AI: an OpenAI-compatible chat-completions endpoint set by configuration (ASSAY_AI_BASE_URL,
 *   ASSAY_AI_MODEL, ASSAY_AI_API_KEY); off by default. Its answer must be JSON that validates
 *   against the schema (ajv), else it is refused.
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { ajvRegExp } from '../domain/regex';
import { sample } from 'openapi-sampler';
import type { ProblemCode } from '../problems';

/**
 * Caps on quick samples (docs/mocks.md "Sample data"): an array's `minItems`,
 * a string's `minLength`, the sampler's nesting depth, and the size of the whole sample (its JSON,
 * in bytes, estimated from the schema before sampling and measured after).
 */
export const SAMPLE_LIMITS = { maxItems: 1000, maxStringLength: 65_536, maxDepth: 8, maxBytes: 1024 * 1024 } as const;
/** How many schema nodes the size estimate visits at most (a schema that needs more is refused). */
const MAX_ESTIMATE_STEPS = 100_000;

type Schema = Record<string, unknown>;

function resolveRef(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, part))
      return undefined;
    node = (node as Schema)[part];
  }
  return node;
}

/**
 * An upper bound of the JSON size (bytes) openapi-sampler produces for `schema`, following its
 * rules (an array has `minItems` items, or one; objects get every property and two
 * additionalProperties; nesting stops at depth 8; a schema already being sampled is not entered
 * again). Throws {@link SampleError} `sample-too-large` naming the keyword when a cap bites.
 */
function estimateSample(schema: unknown, root: unknown, requiredOnly = false): number {
  let steps = 0;
  const tooLarge = (path: Array<string | number>, detail: string) =>
    new SampleError(`The sample would be too large: ${detail}.`, 422, 'sample-too-large', path, detail);
  const visit = (node: unknown, depth: number, path: Array<string | number>, stack: unknown[]): number => {
    if (++steps > MAX_ESTIMATE_STEPS)
      throw tooLarge(path, `the schema needs more than ${MAX_ESTIMATE_STEPS} steps to sample`);
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return 8;
    if (depth > SAMPLE_LIMITS.maxDepth || stack.includes(node) || stack.length > 64) return 8;
    const s = node as Schema;
    if (s.example !== undefined || s.default !== undefined || s.const !== undefined)
      return 8 + JSON.stringify(s.example ?? s.default ?? s.const ?? null).length;
    const inner = [...stack, node];
    if (typeof s.$ref === 'string') return visit(resolveRef(root, s.$ref), depth, [...path, '$ref'], inner);
    let total = 8;
    for (const k of ['allOf', 'oneOf', 'anyOf'] as const) {
      if (Array.isArray(s[k]))
        (s[k] as unknown[]).forEach((sub, i) => (total += visit(sub, depth, [...path, k, i], inner)));
    }
    if (typeof s.minLength === 'number' && s.minLength > SAMPLE_LIMITS.maxStringLength) {
      throw tooLarge(
        [...path, 'minLength'],
        `minLength ${s.minLength} is over the ${SAMPLE_LIMITS.maxStringLength} a sample may have`,
      );
    }
    if (typeof s.minLength === 'number') total += s.minLength;
    if (typeof s.minItems === 'number' && s.minItems > SAMPLE_LIMITS.maxItems) {
      throw tooLarge(
        [...path, 'minItems'],
        `minItems ${s.minItems} is over the ${SAMPLE_LIMITS.maxItems} items a sample may have`,
      );
    }
    const items = s.prefixItems ?? s.items ?? s.contains;
    if (Array.isArray(items))
      items.forEach((sub, i) => (total += visit(sub, depth + 1, [...path, 'prefixItems', i], inner)));
    else if (items && typeof items === 'object') {
      const n = Math.min(
        typeof s.maxItems === 'number' ? s.maxItems : Infinity,
        typeof s.minItems === 'number' && s.minItems > 0 ? s.minItems : 1,
      );
      total += Math.max(0, n) * (1 + visit(items, depth + 1, [...path, 'items'], inner));
    }
    if (s.properties && typeof s.properties === 'object') {
      const required = Array.isArray(s.required) ? (s.required as unknown[]) : [];
      for (const [name, sub] of Object.entries(s.properties as Schema))
        if (!requiredOnly || required.includes(name))
          total += name.length + 4 + visit(sub, depth + 1, [...path, 'properties', name], inner);
    }
    if (!requiredOnly && s.additionalProperties && typeof s.additionalProperties === 'object')
      total += 2 * (16 + visit(s.additionalProperties, depth + 1, [...path, 'additionalProperties'], inner));
    if (total > SAMPLE_LIMITS.maxBytes)
      throw tooLarge(path, `its sample would be over ${SAMPLE_LIMITS.maxBytes} bytes (about ${Math.round(total)})`);
    return total;
  };
  return visit(schema, 1, [], []);
}

/**
 * Generates example-like data for `schema`; `document` resolves `$ref`s (an OpenAPI document;
 * without one, `$ref`s resolve against the schema itself, `#/$defs/...`). `requiredOnly`: only
 * the properties objects require (a smaller sample, for schemas whose full one is too large).
 * @throws SampleError 422 `sample-too-large` (pointing at the keyword) when the sample would pass
 *   {@link SAMPLE_LIMITS}; 400 `validation-failed` when the sampler cannot follow the schema.
 */
export function sampleFromSchema(schema: object, document?: object, options: { requiredOnly?: boolean } = {}): unknown {
  const root = document ?? schema;
  estimateSample(schema, root, options.requiredOnly === true);
  let value: unknown;
  try {
    value = sample(
      schema as never,
      {
        skipReadOnly: false,
        skipWriteOnly: true,
        quiet: true,
        maxSampleDepth: SAMPLE_LIMITS.maxDepth,
        ...(options.requiredOnly ? { skipNonRequired: true } : {}),
      },
      root as never,
    );
  } catch (err) {
    const detail = `cannot be sampled: ${(err as Error).message}`;
    throw new SampleError(`The schema ${detail}`, 400, 'validation-failed', [], detail);
  }
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? 'null');
  if (bytes > SAMPLE_LIMITS.maxBytes) {
    const detail = `its sample would be ${bytes} bytes, over the ${SAMPLE_LIMITS.maxBytes} allowed`;
    throw new SampleError(`The sample would be too large: ${detail}.`, 422, 'sample-too-large', [], detail);
  }
  return value;
}

/** Settings of the AI generator; null when not configured. */
export interface AiSettings {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
}

/**
 * Why no sample could be made; `status` and `code` are what the API answers, `path` points into
 * the schema at fault (segments; empty for the whole schema) and `detail` says what is wrong there.
 */
/** The problem codes a sample can fail with (src/problems.ts). */
export type SampleProblemCode = Extract<
  ProblemCode,
  'ai-failed' | 'ai-not-configured' | 'sample-too-large' | 'validation-failed'
>;

export class SampleError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: SampleProblemCode,
    readonly path: Array<string | number> = [],
    readonly detail: string = message,
  ) {
    super(message);
  }
}

// Patterns run on RE2 (linear time).
const ajv = addFormats(new Ajv({ allErrors: true, strict: false, code: { regExp: ajvRegExp } }));

/** Asks the configured model for one realistic example of `schema`. @throws SampleError */
export async function sampleWithAi(schema: object, settings: AiSettings | null, hint?: string): Promise<unknown> {
  if (!settings) {
    throw new SampleError(
      'The AI sample generator is not configured: set ASSAY_AI_BASE_URL (an OpenAI-compatible API) and ASSAY_AI_MODEL, or use mode "fast".',
      503,
      'ai-not-configured',
    );
  }
  let validate;
  try {
    validate = ajv.compile(schema);
  } catch (err) {
    throw new SampleError(`The schema does not compile: ${(err as Error).message}`, 400, 'validation-failed');
  }
  const prompt = [
    'Produce one realistic example value for this JSON Schema. Answer with the JSON value only, no prose, no code fence.',
    hint ? `Context: ${hint}` : '',
    JSON.stringify(schema),
  ]
    .filter(Boolean)
    .join('\n\n');
  let text: string;
  try {
    // The global fetch, not the undici package: this module is also in the one-file CLI
    // (cli/build.ts), which must load on Node 22 releases that undici 8 does not support.
    const res = await fetch(`${settings.baseUrl.replace(/\/$/, '')}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: settings.model,
        temperature: 0.7,
        messages: [
          { role: 'system', content: 'You generate test data as JSON.' },
          { role: 'user', content: prompt },
        ],
      }),
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
    const answer = (await res.json()) as {
      choices?: Array<{ message?: { content?: string } }>;
      error?: { message?: string };
    };
    if (res.status >= 400) throw new Error(answer.error?.message ?? `HTTP ${res.status}`);
    text = answer.choices?.[0]?.message?.content ?? '';
  } catch (err) {
    throw new SampleError(`The AI sample generator failed: ${(err as Error).message}`, 502, 'ai-failed');
  }
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\s*```(?:json)?\s*|\s*```\s*$/g, ''));
  } catch {
    throw new SampleError('The AI sample generator answered something that is not JSON.', 502, 'ai-failed');
  }
  if (!validate(value)) {
    throw new SampleError(
      `The AI sample does not match the schema: ${(validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}`).join('; ')}`,
      502,
      'ai-failed',
    );
  }
  return value;
}
