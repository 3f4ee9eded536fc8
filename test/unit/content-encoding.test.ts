/**
 * Compressed response bodies (src/net/content-encoding.ts `readDecoded`): gzip, deflate (zlib and
 * raw), br and a chain of codings decoded; the cap counted in decoded bytes; a decompression bomb
 * stopped at the cap without inflating the rest; encoded bytes that decode to nothing capped too;
 * corrupt and cut streams.
 */
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { expect } from 'chai';
import { ContentDecodingError, ENCODED_SLACK_BYTES, readDecoded } from '../../src/net/content-encoding';

/** A response body of `chunks`, counting the bytes pulled from it (and whether it was destroyed). */
function bodyOf(chunks: Buffer[]): { body: never; pulled(): number; destroyed(): boolean } {
  let pulled = 0;
  let i = 0;
  const stream = new Readable({
    read() {
      if (i >= chunks.length) return void this.push(null);
      const chunk = chunks[i++]!;
      pulled += chunk.length;
      this.push(chunk);
    },
  });
  return { body: stream as never, pulled: () => pulled, destroyed: () => stream.destroyed };
}

/** `buf` in pieces of `size` bytes, as a network delivers it. */
function pieces(buf: Buffer, size = 16 * 1024): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < buf.length; i += size) out.push(buf.subarray(i, i + size));
  return out;
}

const CAP = 256 * 1024;
const TEXT = Buffer.from(JSON.stringify({ n: 42, items: Array.from({ length: 200 }, (_, i) => `item ${i}`) }));

describe('compressed response bodies (src/net/content-encoding)', () => {
  for (const [coding, encode] of [
    ['gzip', zlib.gzipSync],
    ['x-gzip', zlib.gzipSync],
    ['deflate', zlib.deflateSync],
    ['br', zlib.brotliCompressSync],
  ] as const) {
    it(`decodes ${coding} and says so`, async () => {
      const encoded = encode(TEXT);
      const read = await readDecoded(bodyOf(pieces(encoded, 100)).body, coding.toUpperCase(), CAP);
      expect(read.bytes.equals(TEXT)).to.equal(true);
      expect(read).to.include({
        size: TEXT.length,
        truncated: false,
        contentEncoding: coding,
        encodedSize: encoded.length,
      });
    });
  }

  it('decodes raw deflate (RFC 1951 without the zlib wrapper), as browsers accept it', async () => {
    const read = await readDecoded(bodyOf([zlib.deflateRawSync(TEXT)]).body, 'deflate', CAP);
    expect(read.bytes.equals(TEXT)).to.equal(true);
  });

  it('decodes a chain in reverse order of application, and ignores identity', async () => {
    const twice = zlib.gzipSync(zlib.deflateSync(TEXT));
    const read = await readDecoded(bodyOf([twice]).body, 'identity, deflate, gzip', CAP);
    expect(read.bytes.equals(TEXT)).to.equal(true);
    expect(read.contentEncoding).to.equal('deflate, gzip');
  });

  it('leaves a body in an unknown coding, or with no coding, as it came', async () => {
    const zstdish = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3]);
    const unknown = await readDecoded(bodyOf([zstdish]).body, 'zstd', CAP);
    expect(unknown.bytes.equals(zstdish)).to.equal(true);
    expect(unknown.contentEncoding).to.equal(undefined);
    const plain = await readDecoded(bodyOf([TEXT]).body, undefined, CAP);
    expect(plain).to.include({ size: TEXT.length, truncated: false });
    expect(plain.contentEncoding).to.equal(undefined);
  });

  it('an empty body with a coding (HEAD, 204) is empty, nothing decoded', async () => {
    const read = await readDecoded(bodyOf([]).body, 'gzip', CAP);
    expect(read).to.deep.include({ size: 0, truncated: false });
    expect(read.contentEncoding).to.equal(undefined);
  });

  it('applies the cap to the decoded bytes', async () => {
    const big = Buffer.alloc(CAP * 2, 'abcdefgh');
    const encoded = zlib.gzipSync(big);
    expect(encoded.length).to.be.below(CAP);
    const read = await readDecoded(bodyOf(pieces(encoded)).body, 'gzip', CAP);
    expect(read.truncated).to.equal(true);
    expect(read.bytes.length).to.equal(CAP);
    expect(read.bytes.equals(big.subarray(0, CAP))).to.equal(true);
  });

  it('stops a gzip bomb (1 GiB from 1 MiB) at the cap: little of it inflated, the stream destroyed', async () => {
    // 64 gzip members of 16 MiB of zeros each (RFC 1952 allows members one after another).
    const member = zlib.gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 64 }, () => member));
    expect(bomb.length).to.be.below(2 * 1024 * 1024);
    const source = bodyOf(pieces(bomb));
    const before = process.memoryUsage().arrayBuffers;
    const read = await readDecoded(source.body, 'gzip', CAP);
    expect(read.truncated).to.equal(true);
    expect(read.bytes.length).to.equal(CAP);
    // Decoded until just past the cap (one decoder chunk), not 1 GiB.
    expect(read.size).to.be.above(CAP);
    expect(read.size).to.be.at.most(CAP + 64 * 1024);
    // Only the start of the bomb was read from the network, and the stream is closed.
    expect(source.pulled()).to.be.below(bomb.length / 4);
    expect(source.destroyed()).to.equal(true);
    expect(process.memoryUsage().arrayBuffers - before).to.be.below(64 * 1024 * 1024);
  });

  it('stops a brotli bomb at the cap too', async () => {
    const bomb = zlib.brotliCompressSync(Buffer.alloc(64 * 1024 * 1024), {
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 },
    });
    const source = bodyOf(pieces(bomb, 1024));
    const read = await readDecoded(source.body, 'br', CAP);
    expect(read).to.include({ truncated: true });
    expect(read.bytes.length).to.equal(CAP);
    expect(read.size).to.be.at.most(CAP + 64 * 1024);
    expect(source.destroyed()).to.equal(true);
  });

  it('caps encoded bytes that decode to nothing (empty deflate blocks, endlessly)', async () => {
    // A raw deflate stored block of length 0, not final (RFC 1951 §3.2.4), repeated.
    const empty = Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]);
    const chunk = Buffer.concat(Array.from({ length: 3000 }, () => empty));
    const source = bodyOf(Array.from({ length: 200 }, () => chunk)); // 3 MB
    const read = await readDecoded(source.body, 'deflate', CAP);
    expect(read.truncated).to.equal(true);
    expect(read.bytes.length).to.equal(0);
    expect(read.encodedSize).to.be.above(CAP + ENCODED_SLACK_BYTES);
    expect(read.encodedSize).to.be.below(CAP + ENCODED_SLACK_BYTES + 128 * 1024);
    expect(source.destroyed()).to.equal(true);
  });

  it('a stream cut short yields what it holds; bytes that are not gzip are a ContentDecodingError', async () => {
    const encoded = zlib.gzipSync(Buffer.alloc(100_000, 'x'));
    const cut = await readDecoded(bodyOf([encoded.subarray(0, encoded.length - 20)]).body, 'gzip', CAP);
    expect(cut.bytes.length).to.be.above(0);
    expect(cut.bytes.every((b) => b === 0x78)).to.equal(true);
    let error: unknown;
    try {
      await readDecoded(bodyOf([Buffer.from('this is not gzip at all')]).body, 'gzip', CAP);
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ContentDecodingError);
    expect((error as Error).message).to.match(/^the body could not be decoded as gzip: /);
  });

  it("passes the stream's own error through as it is", async () => {
    const failing = new Readable({
      read() {
        this.push(zlib.gzipSync(TEXT).subarray(0, 10));
        this.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
      },
    });
    let error: unknown;
    try {
      await readDecoded(failing as never, 'gzip', CAP);
    } catch (err) {
      error = err;
    }
    expect(error).to.not.be.instanceOf(ContentDecodingError);
    expect((error as { code?: string }).code).to.equal('ECONNRESET');
  });
});
