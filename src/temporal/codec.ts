/**
 * Encrypted Temporal payloads (docs/codec.md): a Temporal `PayloadCodec` that
 * encrypts every payload Assay gives Temporal (workflow inputs and results, activity inputs and
 * results, heartbeat details, queries, signals, schedule action arguments, failure details) with
 * the secret key ring (src/secrets/keyring.ts: AES-256-GCM, a fresh 96-bit IV per payload, key ids).
 *
 * An encrypted payload (the layout of Temporal's own encryption samples, so the Web UI and CLI
 * recognise it):
 * - `metadata.encoding` = `binary/encrypted`
 * - `metadata.encryption-key-id` = the id of the ring key that encrypted it (the ring's first key)
 * - `data` = 12-byte IV, then the ciphertext and the 16-byte GCM tag of the WHOLE original payload
 *   (metadata and data) serialised as a `temporal.api.common.v1.Payload` protobuf message.
 *
 * Decoding leaves every payload whose encoding is not `binary/encrypted` as it is: histories written
 * before encryption (and the replay fixtures in test/fixtures/histories) still decode and replay. An
 * encrypted payload opens with the key its id names, any key of the ring (the first key only
 * encrypts), so a key rotates by putting a new key first and keeping the old one while histories
 * written with it are kept.
 *
 * The same {@link dataConverter} is installed on every Temporal client of the API (src/temporal/client.ts,
 * so also schedules) and on the worker (bin/worker.ts); the codec server (api/routes/codec.ts) runs
 * {@link EncryptionCodec} for the Temporal Web UI and CLI.
 */
import {
  METADATA_ENCODING_KEY,
  ValueError,
  type DataConverter,
  type Payload,
  type PayloadCodec,
} from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { AssayConfig } from '../config';
import { KeyRing, keyRingFor } from '../secrets/keyring';

/** `metadata.encoding` of an encrypted payload. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** The metadata key naming the ring key that encrypted a payload. */
export const METADATA_ENCRYPTION_KEY_ID = 'encryption-key-id';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const utf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');
const text = (bytes: Uint8Array | null | undefined): string | undefined =>
  bytes ? Buffer.from(bytes).toString('utf8') : undefined;

/** Whether `payload` is one {@link EncryptionCodec} encrypted (its `encoding` is `binary/encrypted`). */
export function isEncrypted(payload: Payload): boolean {
  return text(payload.metadata?.[METADATA_ENCODING_KEY]) === ENCRYPTED_ENCODING;
}

/** The payload codec: AES-256-GCM with the key ring (see the module comment for the layout). */
export class EncryptionCodec implements PayloadCodec {
  constructor(readonly ring: KeyRing) {}

  /** Encrypts each payload with the ring's first key. */
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const plain = Buffer.from(temporal.api.common.v1.Payload.encode(payload).finish());
      const { keyId, iv, data } = this.ring.encryptBytes(plain);
      return {
        metadata: { [METADATA_ENCODING_KEY]: utf8(ENCRYPTED_ENCODING), [METADATA_ENCRYPTION_KEY_ID]: utf8(keyId) },
        data: Buffer.concat([iv, data]),
      };
    });
  }

  /**
   * Decrypts the encrypted payloads; others pass unchanged. @throws ValueError naming the key id
   * when the ring lacks that key, or when a payload does not open (altered, or another key with the
   * same id).
   */
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (!isEncrypted(payload)) return payload;
      const keyId = text(payload.metadata?.[METADATA_ENCRYPTION_KEY_ID]);
      if (!keyId) throw new ValueError(`An encrypted Temporal payload has no "${METADATA_ENCRYPTION_KEY_ID}" metadata`);
      if (!this.ring.keys.some((k) => k.id === keyId)) {
        throw new ValueError(
          `A Temporal payload was encrypted with key "${keyId}", which ASSAY_SECRET_KEYS does not hold (it has ${this.ring.keys.map((k) => k.id).join(', ')}); add that key to the ring to read it`,
        );
      }
      const data = Buffer.from(payload.data ?? new Uint8Array());
      if (data.length < IV_BYTES + TAG_BYTES)
        throw new ValueError(`An encrypted Temporal payload (key "${keyId}") is too short to hold an IV and a tag`);
      let plain: Buffer;
      try {
        plain = this.ring.decryptBytes(keyId, data.subarray(0, IV_BYTES), data.subarray(IV_BYTES));
      } catch {
        throw new ValueError(
          `An encrypted Temporal payload does not open with key "${keyId}" (altered, or that id names another key in this ring than the one it was encrypted with)`,
        );
      }
      const decoded = temporal.api.common.v1.Payload.decode(plain);
      return { metadata: { ...decoded.metadata }, data: decoded.data };
    });
  }
}

/** The codec with the ring of `config` (`ASSAY_SECRET_KEYS`, else the data dir's generated key). */
export function payloadCodec(config: Pick<AssayConfig, 'secretKeys' | 'dataDir'>): EncryptionCodec {
  return new EncryptionCodec(keyRingFor(config.secretKeys, config.dataDir));
}

/**
 * The data converter of every Temporal client and worker of Assay: the SDK's default payload and
 * failure converters, then {@link EncryptionCodec}. Runs outside the workflow sandbox (codecs always
 * do), so the prebuilt workflow bundle is unchanged. @throws KeyRingError for a malformed key ring.
 */
export function dataConverter(config: Pick<AssayConfig, 'secretKeys' | 'dataDir'>): DataConverter {
  return { payloadCodecs: [payloadCodec(config)] };
}
