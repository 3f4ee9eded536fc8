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
import { request } from 'undici';

/** Generates example-like data for `schema`; `document` resolves `$ref`s (an OpenAPI document). */
export function sampleFromSchema(schema: object, document?: object): unknown {
  return sample(schema as never, { skipReadOnly: false, skipWriteOnly: true, quiet: true, maxSampleDepth: 8 }, document);
}

/** Settings of the AI generator; null when not configured. */
export interface AiSettings {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
}

/** Why the AI generator could not give data; `status` is the HTTP status the API should answer. */
export class SampleError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
  ) {
    super(message);
  }
}

// Patterns run on RE2 (linear time; issue 10 item 4).
const ajv = addFormats(new Ajv({ allErrors: true, strict: false, code: { regExp: ajvRegExp } }));

/** Asks the configured model for one realistic example of `schema`. @throws SampleError */
export async function sampleWithAi(schema: object, settings: AiSettings | null, hint?: string): Promise<unknown> {
  if (!settings) {
    throw new SampleError('The AI sample generator is not configured: set ASSAY_AI_BASE_URL (an OpenAI-compatible API) and ASSAY_AI_MODEL, or use mode "fast".', 503, 'ai-not-configured');
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
  ].filter(Boolean).join('\n\n');
  let text: string;
  try {
    const res = await request(`${settings.baseUrl.replace(/\/$/, '')}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}) },
      body: JSON.stringify({ model: settings.model, temperature: 0.7, messages: [{ role: 'system', content: 'You generate test data as JSON.' }, { role: 'user', content: prompt }] }),
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
    const answer = (await res.body.json()) as { choices?: Array<{ message?: { content?: string } }>; error?: { message?: string } };
    if (res.statusCode >= 400) throw new Error(answer.error?.message ?? `HTTP ${res.statusCode}`);
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
    throw new SampleError(`The AI sample does not match the schema: ${(validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}`).join('; ')}`, 502, 'ai-failed');
  }
  return value;
}
