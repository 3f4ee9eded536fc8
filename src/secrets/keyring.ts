/**
 * The key ring secrets are encrypted with (docs/security.md "Secrets"): AES-256-GCM through Node's
 * `crypto` (NIST SP 800-38D: a fresh 96-bit IV per message, a 128-bit tag), keys with ids so they
 * rotate without re-entering secrets.
 *
 * - `ASSAY_SECRET_KEYS`: comma-separated `id:key` entries, `key` being 32 bytes as base64,
 *   base64url or 64 hex digits, `id` 1–32 characters of `[A-Za-z0-9_-]`. The FIRST entry encrypts;
 *   every entry decrypts. Rotate: put a new key first, keep the old ones until every value was
 *   written again (a write always uses the first key). Every API and worker process needs the same
 *   list.
 * - Unset (a developer's machine): one key is generated into `<ASSAY_DATA_DIR>/secret-keys`
 *   (mode 0600) on first use and read from there afterwards.
 *
 * Sealed text: `v1.<keyId>.<iv base64url>.<ciphertext+tag base64url>`. `aad` (additional
 * authenticated data) binds a sealed value to where it belongs (e.g. `environment:<id>:<name>`),
 * so a value copied to another field does not open.
 */
import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** One key of the ring. */
export interface SecretKey {
  id: string;
  key: Buffer;
}

/** The prefix of every sealed value (so a stored value says whether it is sealed). */
export const SEALED_PREFIX = 'v1.';

/** A key ring problem: a malformed ASSAY_SECRET_KEYS, or a sealed value that cannot be opened. */
export class KeyRingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyRingError';
  }
}

const ID = /^[A-Za-z0-9_-]{1,32}$/;

/** Random bytes drawn 4 KiB at a time: one `randomBytes(12)` per payload cost a worker 2 % of its main thread. */
const IV_POOL_BYTES = 4096;
let ivPool = Buffer.alloc(0);
let ivOffset = 0;

/** A fresh random 96-bit GCM IV (NIST SP 800-38D §8.2.2: random IVs from a CSPRNG), from a pool of `crypto.randomBytes`. */
function randomIv(): Buffer {
  if (ivOffset + 12 > ivPool.length) {
    ivPool = randomBytes(IV_POOL_BYTES);
    ivOffset = 0;
  }
  // A copy: the IV outlives the pool's next refill.
  const iv = Buffer.from(ivPool.subarray(ivOffset, ivOffset + 12));
  ivOffset += 12;
  return iv;
}

/** Decodes a 32-byte key written as base64, base64url or hex; @throws KeyRingError. */
function decodeKey(id: string, text: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(t)
    ? Buffer.from(t, 'hex')
    : Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== 32)
    throw new KeyRingError(
      `ASSAY_SECRET_KEYS: key "${id}" must be 32 bytes (base64, base64url or 64 hex digits), not ${key.length}`,
    );
  return key;
}

/** Parses `id:key,id:key`; @throws KeyRingError naming the entry at fault. */
export function parseSecretKeys(text: string): SecretKey[] {
  const keys: SecretKey[] = [];
  for (const entry of text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const colon = entry.indexOf(':');
    if (colon <= 0) throw new KeyRingError('ASSAY_SECRET_KEYS: each entry is id:key (e.g. k2:<32 bytes base64>)');
    const id = entry.slice(0, colon);
    if (!ID.test(id))
      throw new KeyRingError(`ASSAY_SECRET_KEYS: key id "${id}" must be 1–32 characters of letters, digits, _ and -`);
    if (keys.some((k) => k.id === id)) throw new KeyRingError(`ASSAY_SECRET_KEYS: key id "${id}" is listed twice`);
    keys.push({ id, key: decodeKey(id, entry.slice(colon + 1)) });
  }
  if (!keys.length) throw new KeyRingError('ASSAY_SECRET_KEYS is empty');
  return keys;
}

/** A new random key entry, `id:base64`, for ASSAY_SECRET_KEYS (e.g. `node dist/bin/api-keys.js secret-key`). */
export function newSecretKeyEntry(id: string): string {
  if (!ID.test(id)) throw new KeyRingError(`key id "${id}" must be 1–32 characters of letters, digits, _ and -`);
  return `${id}:${randomBytes(32).toString('base64')}`;
}

/** Derived rings a ring keeps (one per workspace the process has seen, for the codec). */
const MAX_DERIVED = 4096;

export class KeyRing {
  // Key material in ES private fields (and `keys` a getter): not own enumerable properties, so no
  // log line or object walk that meets a ring (the Temporal SDK logs its worker's options, codec
  // included, at debug level) copies a key. KeyObjects made once: given a Buffer, every
  // createCipheriv makes one (measured: a tenth of a worker's main thread when it encrypted every
  // Temporal payload; docs/benchmarks.md "Scaling").
  readonly #keys: SecretKey[];
  readonly #byId: Map<string, KeyObject>;
  readonly #primary: KeyObject;
  readonly #derived = new Map<string, KeyRing>();

  constructor(keys: SecretKey[]) {
    if (!keys.length) throw new KeyRingError('a key ring needs at least one key');
    this.#keys = keys;
    this.#byId = new Map(keys.map((k) => [k.id, createSecretKey(k.key)]));
    this.#primary = this.#byId.get(keys[0]!.id)!;
  }

  /** The keys, the encrypting one first. */
  get keys(): readonly SecretKey[] {
    return this.#keys;
  }

  /** What a ring shows of itself when serialised (a log line): its key ids, never a key. */
  toJSON(): { keyIds: string[] } {
    return { keyIds: this.#keys.map((k) => k.id) };
  }

  /** The id of the key that encrypts. */
  get primaryId(): string {
    return this.#keys[0]!.id;
  }

  /** Whether a stored text is a sealed value (rather than a plain one from before encryption). */
  static isSealed(text: unknown): text is string {
    return typeof text === 'string' && text.startsWith(SEALED_PREFIX) && text.split('.').length === 4;
  }

  /** Encrypts bytes with the primary key: `{keyId, iv, data}` (data = ciphertext followed by the 16-byte tag). */
  encryptBytes(plain: Buffer, aad?: string): { keyId: string; iv: Buffer; data: Buffer } {
    const iv = randomIv();
    const cipher = createCipheriv('aes-256-gcm', this.#primary, iv);
    if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'));
    const data = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return { keyId: this.primaryId, iv, data };
  }

  /** Decrypts what {@link encryptBytes} made; @throws KeyRingError for an unknown key or a wrong tag. */
  decryptBytes(keyId: string, iv: Buffer, data: Buffer, aad?: string): Buffer {
    const key = this.#byId.get(keyId);
    if (!key)
      throw new KeyRingError(
        `the secret was encrypted with key "${keyId}", which ASSAY_SECRET_KEYS does not hold (it has ${[...this.#byId.keys()].join(', ')})`,
      );
    if (data.length < 16 || iv.length !== 12) throw new KeyRingError('the sealed value is malformed');
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(data.subarray(data.length - 16));
    try {
      return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]);
    } catch {
      throw new KeyRingError(
        `the sealed value does not open with key "${keyId}" (altered, or sealed for another place)`,
      );
    }
  }

  /** Seals a string: `v1.<keyId>.<iv>.<data>`. */
  seal(plain: string, aad?: string): string {
    const { keyId, iv, data } = this.encryptBytes(Buffer.from(plain, 'utf8'), aad);
    return `${SEALED_PREFIX}${keyId}.${iv.toString('base64url')}.${data.toString('base64url')}`;
  }

  /** Opens a sealed string; @throws KeyRingError. */
  open(sealed: string, aad?: string): string {
    if (!KeyRing.isSealed(sealed)) throw new KeyRingError('not a sealed value');
    const [, keyId, iv, data] = sealed.split('.') as [string, string, string, string];
    return this.decryptBytes(keyId, Buffer.from(iv, 'base64url'), Buffer.from(data, 'base64url'), aad).toString('utf8');
  }

  /**
   * A ring of keys derived from this one for one purpose: each key becomes HKDF-SHA256 (RFC 5869)
   * of it with `info` (no salt), under the same id, so the derived ring rotates with this one. Keys
   * derived for different `info` are unrelated: what one seals, another does not open (the codec's
   * per-workspace keys, src/temporal/codec.ts). Cached: at most {@link MAX_DERIVED} rings per ring, the
   * oldest made dropped first.
   */
  derive(info: string): KeyRing {
    let ring = this.#derived.get(info);
    if (ring) return ring;
    ring = new KeyRing(
      this.#keys.map((k) => ({ id: k.id, key: Buffer.from(hkdfSync('sha256', k.key, Buffer.alloc(0), info, 32)) })),
    );
    this.#derived.set(info, ring);
    if (this.#derived.size > MAX_DERIVED) this.#derived.delete(this.#derived.keys().next().value as string);
    return ring;
  }

  /** Whether a sealed value was sealed with an older key (and should be sealed again on its next write). */
  isStale(sealed: string): boolean {
    return KeyRing.isSealed(sealed) && sealed.split('.')[1] !== this.primaryId;
  }
}

/**
 * The ring from `ASSAY_SECRET_KEYS` (`secretKeys`), else from `<dataDir>/secret-keys`, created with
 * one random key when missing. @throws KeyRingError for a malformed list or file.
 */
export function loadKeyRing(secretKeys: string | undefined, dataDir: string): KeyRing {
  if (secretKeys !== undefined && secretKeys.trim() !== '') return new KeyRing(parseSecretKeys(secretKeys));
  const file = path.join(dataDir, 'secret-keys');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true });
    try {
      fs.writeFileSync(file, `${newSecretKeyEntry('dev1')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return new KeyRing(parseSecretKeys(fs.readFileSync(file, 'utf8').replace(/\s+/g, ',')));
}

const rings = new Map<string, KeyRing>();

/** {@link loadKeyRing}, once per (keys, dataDir) in this process. */
export function keyRingFor(secretKeys: string | undefined, dataDir: string): KeyRing {
  const id = `${secretKeys ?? ''}\u0000${dataDir}`;
  let ring = rings.get(id);
  if (!ring) {
    ring = loadKeyRing(secretKeys, dataDir);
    rings.set(id, ring);
  }
  return ring;
}
