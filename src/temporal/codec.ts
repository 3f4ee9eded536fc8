/**
 * Encrypted Temporal payloads (docs/codec.md): a Temporal `PayloadCodec` that
 * encrypts every payload Assay gives Temporal (workflow inputs and results, activity inputs and
 * results, heartbeat details, queries, signals, schedule action arguments, failure details) with
 * the secret key ring (src/secrets/keyring.ts: AES-256-GCM, a fresh 96-bit IV per payload, key ids),
 * each workspace's payloads with keys of their own.
 *
 * An encrypted payload (the layout of Temporal's own encryption samples, so the Web UI and CLI
 * recognise it):
 * - `metadata.encoding` = `binary/encrypted`
 * - `metadata.encryption-key-id` = the id of the ring key that encrypted it (the ring's first key)
 * - `metadata.assay-workspace` = the workspace whose run the payload belongs to; the payload is then
 *   encrypted with that workspace's key, HKDF-SHA256 (RFC 5869) of the ring key with
 *   `assay-codec-payloads:<workspaceId>` (KeyRing.derive), and the workspace id is also its
 *   additional authenticated data: changing the metadata makes it fail to open, and no workspace's
 *   key opens another's payloads. Absent for payloads of no run (and for every payload written
 *   before per-workspace keys): those use the ring key itself and only an operator reads them
 *   through the codec server.
 * - `data` = 12-byte IV, then the ciphertext and the 16-byte GCM tag of the WHOLE original payload
 *   (metadata and data) serialised as a `temporal.api.common.v1.Payload` protobuf message.
 *
 * Which run (so which workspace) a payload belongs to comes from the SDK's serialization context
 * (the workflow id of the workflow or activity that owns the payload) through {@link PayloadScopes}
 * (src/temporal/payload-scopes.ts reads it from the store). Before encrypting a run's JSON payload,
 * its secret values are sealed inside it (src/secrets/history-seal.ts) with a key only for that; the
 * worker and Assay's clients open them after decrypting ({@link EncryptionCodec.decode}), the codec
 * server never does ({@link EncryptionCodec.decodeFor}).
 *
 * Decoding leaves every payload whose encoding is not `binary/encrypted` as it is: histories written
 * before encryption (and the replay fixtures in test/fixtures/histories) still decode and replay. An
 * encrypted payload opens with the key its id names, any key of the ring (the first key only
 * encrypts), so a key rotates by putting a new key first and keeping the old one while histories
 * written with it are kept.
 *
 * The same {@link dataConverter} is installed on every Temporal client of the API (src/temporal/client.ts,
 * so also schedules) and on the worker (bin/worker.ts); the codec server (api/routes/codec.ts) runs
 * {@link EncryptionCodec.decodeFor} and {@link EncryptionCodec.encodeFor} for the Temporal Web UI and CLI.
 */
import {
  METADATA_ENCODING_KEY,
  ValueError,
  type DataConverter,
  type Payload,
  type PayloadCodec,
  type SerializationContext,
} from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { AssayConfig } from '../config';
import { KeyRing, keyRingFor } from '../secrets/keyring';
import {
  historySecretRing,
  maskSealedSecrets,
  openSealedSecrets,
  SEALED_SECRET_PREFIX,
  type HistorySealer,
} from '../secrets/history-seal';

/** `metadata.encoding` of an encrypted payload. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** The metadata key naming the ring key that encrypted a payload. */
export const METADATA_ENCRYPTION_KEY_ID = 'encryption-key-id';
/** The metadata key naming the workspace whose key encrypted a payload. */
export const METADATA_WORKSPACE = 'assay-workspace';
/** `metadata.encoding` of a JSON payload (the SDK's JSON payload converter). */
const JSON_ENCODING = 'json/plain';

/** What the codec server answers for a payload of another workspace. */
export const OTHER_WORKSPACE_TEXT = '[encrypted: another workspace]';
/** What the codec server answers for a payload without a workspace to a workspace's key. */
export const OPERATOR_ONLY_TEXT =
  '[encrypted: not a workspace payload; an operator credential (ASSAY_CODEC_OPERATOR_TOKEN) decodes it]';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const WORKSPACE_ID = /^[A-Za-z0-9_-]{1,64}$/;
const utf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');
const text = (bytes: Uint8Array | null | undefined): string | undefined =>
  bytes ? Buffer.from(bytes).toString('utf8') : undefined;

/** Whether `payload` is one {@link EncryptionCodec} encrypted (its `encoding` is `binary/encrypted`). */
export function isEncrypted(payload: Payload): boolean {
  return text(payload.metadata?.[METADATA_ENCODING_KEY]) === ENCRYPTED_ENCODING;
}

/** The workspace an encrypted payload names, if any. */
export function payloadWorkspace(payload: Payload): string | undefined {
  return text(payload.metadata?.[METADATA_WORKSPACE]);
}

/** The run a payload belongs to, as far as the codec needs it: its workspace and its secret values. */
export interface PayloadScope {
  workspaceId: string;
  /** The run's secret values, sealed inside its payloads (src/secrets/history-seal.ts). */
  sealer: HistorySealer;
}

/** Finds the run of a workflow id (src/temporal/payload-scopes.ts). */
export interface PayloadScopes {
  /** The scope of the workflow `workflowId`, or undefined when it is no run's (its payloads get no workspace). */
  scopeOf(workflowId: string): Promise<PayloadScope | undefined>;
}

/** Who reads through the codec server: a workspace's key (or codec session), or the operator. */
export type CodecReader = { workspaceId: string; operator?: false } | { operator: true };

/** A JSON payload holding `value`, for what the codec server shows instead of a payload. */
function jsonPayload(value: unknown): Payload {
  return { metadata: { [METADATA_ENCODING_KEY]: utf8(JSON_ENCODING) }, data: utf8(JSON.stringify(value)) };
}

/** The payload codec: AES-256-GCM with the key ring (see the module comment for the layout). */
export class EncryptionCodec implements PayloadCodec {
  // Private fields: a log line of the worker's options (the SDK logs them at debug level) shows
  // neither the ring nor the store behind the scopes.
  readonly #ring: KeyRing;
  readonly #scopes: PayloadScopes | undefined;
  readonly #byWorkspace = new Map<string, { payloads: KeyRing; secrets: KeyRing }>();

  constructor(ring: KeyRing, scopes?: PayloadScopes) {
    this.#ring = ring;
    this.#scopes = scopes;
  }

  /** The key ring. */
  get ring(): KeyRing {
    return this.#ring;
  }

  /** What a codec shows of itself when serialised. */
  toJSON(): { codec: string } {
    return { codec: 'assay-encryption' };
  }

  /** The rings of `workspaceId` (its payloads', its history secrets'), made once per workspace. */
  #rings(workspaceId: string): { payloads: KeyRing; secrets: KeyRing } {
    let rings = this.#byWorkspace.get(workspaceId);
    if (!rings) {
      rings = {
        payloads: this.#ring.derive(`assay-codec-payloads:${workspaceId}`),
        secrets: historySecretRing(this.#ring, workspaceId),
      };
      if (this.#byWorkspace.size >= 4096) this.#byWorkspace.clear();
      this.#byWorkspace.set(workspaceId, rings);
    }
    return rings;
  }

  /**
   * Encrypts each payload with the ring's first key: with its workspace's key when `context` names
   * a run's workflow (its secret values sealed inside first), else with the ring key itself.
   */
  async encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    const workflowId = context?.workflowId;
    const scope = workflowId && this.#scopes ? await this.#scopes.scopeOf(workflowId) : undefined;
    return payloads.map((payload) =>
      this.encrypt(scope ? this.sealSecrets(payload, scope) : payload, scope?.workspaceId),
    );
  }

  /** Encrypts for the codec server's `/codec/encode`: with the caller's workspace key, or the ring key for the operator. */
  encodeFor(payloads: Payload[], reader: CodecReader): Payload[] {
    return payloads.map((payload) => this.encrypt(payload, reader.operator ? undefined : reader.workspaceId));
  }

  /**
   * Decrypts the encrypted payloads and opens the secrets sealed inside them (the worker's and the
   * clients' view); others pass unchanged. @throws ValueError naming the key id when the ring lacks
   * that key, or when a payload does not open (altered, or another key with the same id).
   */
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (!isEncrypted(payload)) return payload;
      const workspaceId = payloadWorkspace(payload);
      const plain = this.decrypt(payload);
      return workspaceId === undefined ? plain : this.openSecrets(plain, workspaceId);
    });
  }

  /**
   * The codec server's decode (docs/codec.md "Who reads what"): a payload of the reader's workspace
   * decrypted, its sealed secrets shown as `***`; the operator reads every payload so; anyone else
   * gets {@link OTHER_WORKSPACE_TEXT} (or {@link OPERATOR_ONLY_TEXT} for a payload of no
   * workspace) in place of the payload. Payloads that are not encrypted pass unchanged.
   * @throws ValueError as {@link decode}, only for payloads the reader may read.
   */
  decodeFor(payloads: Payload[], reader: CodecReader): Payload[] {
    return payloads.map((payload) => {
      if (!isEncrypted(payload)) return payload;
      const workspaceId = payloadWorkspace(payload);
      if (!reader.operator) {
        if (workspaceId === undefined) return jsonPayload(OPERATOR_ONLY_TEXT);
        if (workspaceId !== reader.workspaceId) return jsonPayload(OTHER_WORKSPACE_TEXT);
      }
      const plain = this.decrypt(payload);
      if (text(plain.metadata?.[METADATA_ENCODING_KEY]) !== JSON_ENCODING || !plain.data) return plain;
      const data = text(plain.data)!;
      return data.includes(SEALED_SECRET_PREFIX) ? { ...plain, data: utf8(maskSealedSecrets(data)) } : plain;
    });
  }

  /** `payload` encrypted with the ring's first key (the workspace's when given). */
  private encrypt(payload: Payload, workspaceId: string | undefined): Payload {
    const plain = Buffer.from(temporal.api.common.v1.Payload.encode(payload).finish());
    const { keyId, iv, data } =
      workspaceId === undefined
        ? this.ring.encryptBytes(plain)
        : this.#rings(workspaceId).payloads.encryptBytes(plain, `assay-payload:${workspaceId}`);
    const metadata: Record<string, Uint8Array> = {
      [METADATA_ENCODING_KEY]: utf8(ENCRYPTED_ENCODING),
      [METADATA_ENCRYPTION_KEY_ID]: utf8(keyId),
    };
    if (workspaceId !== undefined) metadata[METADATA_WORKSPACE] = utf8(workspaceId);
    return { metadata, data: Buffer.concat([iv, data]) };
  }

  /** An encrypted payload opened. @throws ValueError (see {@link decode}). */
  private decrypt(payload: Payload): Payload {
    const keyId = text(payload.metadata?.[METADATA_ENCRYPTION_KEY_ID]);
    if (!keyId) throw new ValueError(`An encrypted Temporal payload has no "${METADATA_ENCRYPTION_KEY_ID}" metadata`);
    if (!this.ring.keys.some((k) => k.id === keyId)) {
      throw new ValueError(
        `A Temporal payload was encrypted with key "${keyId}", which ASSAY_SECRET_KEYS does not hold (it has ${this.ring.keys.map((k) => k.id).join(', ')}); add that key to the ring to read it`,
      );
    }
    const workspaceId = payloadWorkspace(payload);
    if (workspaceId !== undefined && !WORKSPACE_ID.test(workspaceId))
      throw new ValueError(`An encrypted Temporal payload names a malformed workspace in "${METADATA_WORKSPACE}"`);
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < IV_BYTES + TAG_BYTES)
      throw new ValueError(`An encrypted Temporal payload (key "${keyId}") is too short to hold an IV and a tag`);
    let plain: Buffer;
    try {
      plain =
        workspaceId === undefined
          ? this.ring.decryptBytes(keyId, data.subarray(0, IV_BYTES), data.subarray(IV_BYTES))
          : this.#rings(workspaceId).payloads.decryptBytes(
              keyId,
              data.subarray(0, IV_BYTES),
              data.subarray(IV_BYTES),
              `assay-payload:${workspaceId}`,
            );
    } catch {
      throw new ValueError(
        `An encrypted Temporal payload does not open with key "${keyId}" (altered, its workspace changed, or that id names another key in this ring than the one it was encrypted with)`,
      );
    }
    const decoded = temporal.api.common.v1.Payload.decode(plain);
    return { metadata: { ...decoded.metadata }, data: decoded.data };
  }

  /** A JSON payload of `scope`'s run with its secret values sealed (unchanged when it holds none). */
  private sealSecrets(payload: Payload, scope: PayloadScope): Payload {
    if (scope.sealer.empty || text(payload.metadata?.[METADATA_ENCODING_KEY]) !== JSON_ENCODING || !payload.data)
      return payload;
    let sealed: string | undefined;
    try {
      sealed = scope.sealer.sealJson(text(payload.data)!, this.#rings(scope.workspaceId).secrets);
    } catch {
      // Not JSON after all: encrypted as it is (its secrets only under the payload encryption).
      return payload;
    }
    return sealed === undefined ? payload : { ...payload, data: utf8(sealed) };
  }

  /** A decrypted JSON payload of `workspaceId` with its sealed secrets opened. */
  private openSecrets(payload: Payload, workspaceId: string): Payload {
    if (text(payload.metadata?.[METADATA_ENCODING_KEY]) !== JSON_ENCODING || !payload.data) return payload;
    const opened = openSealedSecrets(text(payload.data)!, this.#rings(workspaceId).secrets);
    return opened === undefined ? payload : { ...payload, data: utf8(opened) };
  }
}

/**
 * The codec with the ring of `config` (`ASSAY_SECRET_KEYS`, else the data dir's generated key);
 * `scopes` finds the run of a payload (without it, no payload gets a workspace: tests, replays).
 */
export function payloadCodec(
  config: Pick<AssayConfig, 'secretKeys' | 'dataDir'>,
  scopes?: PayloadScopes,
): EncryptionCodec {
  return new EncryptionCodec(keyRingFor(config.secretKeys, config.dataDir), scopes);
}

/**
 * The data converter of every Temporal client and worker of Assay: the SDK's default payload and
 * failure converters, then {@link EncryptionCodec}. Runs outside the workflow sandbox (codecs always
 * do), so the prebuilt workflow bundle is unchanged. @throws KeyRingError for a malformed key ring.
 */
export function dataConverter(
  config: Pick<AssayConfig, 'secretKeys' | 'dataDir'>,
  scopes?: PayloadScopes,
): DataConverter {
  return { payloadCodecs: [payloadCodec(config, scopes)] };
}
