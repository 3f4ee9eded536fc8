/**
 * Response bodies in a content coding (RFC 9110 §8.4: `Content-Encoding: gzip`, `deflate`, `br`),
 * decoded within a byte cap: what API nodes (activities/api-request.ts) and the console's relay
 * (api/routes/relay.ts) keep of a compressed answer is its decoded text, as Newman and browsers
 * show it.
 *
 * The cap applies to the DECODED bytes: a decompression bomb (a few KiB that inflate to GiB) is
 * read until `maxBytes` decoded bytes came out, then everything stops (the decoders and the
 * response stream are destroyed, the connection closes) and the body is marked cut. The decoders
 * run with backpressure, so at most one decoder chunk (16 KiB) beyond the cap is ever produced.
 * Encoded bytes that yield nothing (empty deflate blocks repeated) are capped as well: reading stops
 * once more than `maxBytes` + {@link ENCODED_SLACK_BYTES} encoded bytes arrived.
 *
 * Decoding is lenient as browsers and curl are: a stream cut short yields what it holds (zlib's
 * and brotli's sync flush). `deflate` is the zlib format (RFC 1950) or, as some servers send it,
 * raw deflate (RFC 1951), told apart by the first two bytes. A coding not listed in
 * {@link DECODED_CODINGS} leaves the body as it came (its bytes, no decoding claimed).
 */
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import type { Dispatcher } from 'undici';
import { readCapped, type CappedBody } from './http';

/** The content codings decoded (`x-gzip` is read as `gzip`, RFC 9110 §8.4.1.3). */
export const DECODED_CODINGS = ['gzip', 'x-gzip', 'deflate', 'br'] as const;

/** What API nodes send as `Accept-Encoding` when the request sets none (Newman's value). */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/** Encoded bytes read beyond the cap at most when they decode to less (see the module comment). */
export const ENCODED_SLACK_BYTES = 64 * 1024;

/** A body read by {@link readDecoded}. */
export interface DecodedBody extends CappedBody {
  /**
   * The content codings the body was decoded from, as the response listed them (lower case, e.g.
   * `gzip`, `br`, `deflate, gzip`); absent when nothing was decoded (no coding, `identity`, an
   * unknown coding, or an empty body). When set, `bytes`, `size` and `truncated` are of the
   * decoded body.
   */
  contentEncoding?: string;
  /** With `contentEncoding`: the encoded bytes received (until the cut, when cut). */
  encodedSize?: number;
}

/** A body whose coding is one of ours but whose bytes are not in it (corrupt, or another coding). */
export class ContentDecodingError extends Error {
  readonly code = 'DECODING_FAILED';
  constructor(
    readonly coding: string,
    cause: unknown,
  ) {
    super(`the body could not be decoded as ${coding}: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'ContentDecodingError';
  }
}

/** The codings of a `Content-Encoding` value in the order they were applied, `identity` left out. */
export function parseContentEncoding(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
}

/** Whether `bytes` start with a zlib header (RFC 1950 §2.2: CM 8, and CMF·256 + FLG a multiple of 31). */
function zlibWrapped(bytes: Buffer | undefined): boolean {
  if (!bytes || bytes.length < 2) return true;
  return (bytes[0]! & 0x0f) === 8 && ((bytes[0]! << 8) | bytes[1]!) % 31 === 0;
}

function decoderFor(coding: string, first: Buffer | undefined): Transform {
  const lenient = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip(lenient);
    case 'deflate':
      return zlibWrapped(first) ? zlib.createInflate(lenient) : zlib.createInflateRaw(lenient);
    default:
      return zlib.createBrotliDecompress({
        flush: zlib.constants.BROTLI_OPERATION_FLUSH,
        finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
      });
  }
}

/**
 * Reads `body` decoded from the codings of `contentEncoding` (the response's `Content-Encoding`),
 * keeping at most `maxBytes` decoded bytes (see the module comment). Without a coding to decode it
 * is {@link readCapped}.
 * @throws {@link ContentDecodingError} when a decoder refuses the bytes; the stream's own error
 *   (reset, body timeout, abort) as it is
 */
export async function readDecoded(
  body: Dispatcher.ResponseData['body'],
  contentEncoding: string | undefined,
  maxBytes: number,
): Promise<DecodedBody> {
  const codings = parseContentEncoding(contentEncoding);
  if (codings.length === 0 || !codings.every((c) => (DECODED_CODINGS as readonly string[]).includes(c)))
    return readCapped(body, maxBytes);

  const input = (body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  let sourceError: unknown;
  let first: IteratorResult<Buffer>;
  try {
    first = await input.next();
  } catch (err) {
    body.destroy();
    throw err;
  }
  if (first.done) return { bytes: Buffer.alloc(0), size: 0, truncated: false };

  let encoded = 0;
  let encodedCut = false;
  const encodedCap = maxBytes + ENCODED_SLACK_BYTES;
  async function* source(): AsyncGenerator<Buffer> {
    let next = first;
    while (!next.done) {
      encoded += next.value.length;
      yield next.value;
      if (encoded > encodedCap) {
        encodedCut = true;
        return;
      }
      try {
        next = await input.next();
      } catch (err) {
        sourceError = err;
        throw err;
      }
    }
  }
  // Applied in header order, so decoded in reverse; only the outermost coding sees the wire bytes.
  const decoders = [...codings].reverse().map((c, i) => decoderFor(c, i === 0 ? first.value : undefined));
  const output = decoders[decoders.length - 1]!;
  const flowing = pipeline([Readable.from(source(), { objectMode: false }), ...decoders]).catch((err: unknown) => err);

  const chunks: Buffer[] = [];
  let size = 0;
  let kept = 0;
  let truncated = false;
  try {
    for await (const chunk of output as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - kept));
        truncated = true;
        break;
      }
      chunks.push(chunk);
      kept += chunk.length;
    }
  } catch (err) {
    body.destroy();
    if (sourceError !== undefined) throw sourceError;
    throw new ContentDecodingError(codings.join(', '), err);
  } finally {
    if (truncated || encodedCut) {
      body.destroy();
      for (const d of decoders) d.destroy();
    }
  }
  const failed = await flowing;
  if (failed && !truncated && !encodedCut) {
    if (sourceError !== undefined) throw sourceError;
    throw new ContentDecodingError(codings.join(', '), failed);
  }
  return {
    bytes: Buffer.concat(chunks),
    size,
    truncated: truncated || encodedCut,
    contentEncoding: codings.join(', '),
    encodedSize: encoded,
  };
}
