/**
 * Where local requests live (interface spec "Local request"): the browser only. The requests and
 * the local variable groups of a workspace (a "project") are one JSON document in localStorage under
 * `assay.local-requests.v1.<workspaceId>`; the files chosen for multipart bodies are Blobs in
 * IndexedDB (database `assay-local-requests`, store `files`, key `<workspaceId>/<fileId>`), up to
 * {@link MAX_FILE_BYTES} each. Nothing here talks to the Assay API.
 *
 * The document carries a schema version ({@link SCHEMA_VERSION}); a document of another version,
 * or one that does not parse, is kept aside under `<key>.unreadable` and an empty one starts.
 */

export * from './request';
import { newId, type LocalRequest, type Row } from './request';

/** A variable group created on this page: names to values, kept in localStorage. */
export interface LocalGroup {
  id: string;
  name: string;
  variables: Row[];
}

/** The stored document of one workspace. */
export interface LocalState {
  version: typeof SCHEMA_VERSION;
  requests: LocalRequest[];
  groups: LocalGroup[];
}

export const SCHEMA_VERSION = 1;
/** Largest file a multipart row keeps (10 MiB); larger files are refused when chosen. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** The localStorage key of workspace `workspaceId`'s document. */
export function storageKey(workspaceId: string): string {
  return `assay.local-requests.v${SCHEMA_VERSION}.${workspaceId}`;
}

const empty = (): LocalState => ({ version: SCHEMA_VERSION, requests: [], groups: [] });

/** Reads workspace `workspaceId`'s document (an empty one when there is none or it is unreadable). */
export function load(workspaceId: string): LocalState {
  const key = storageKey(workspaceId);
  const raw = localStorage.getItem(key);
  if (!raw) return empty();
  try {
    const doc = JSON.parse(raw) as LocalState;
    if (doc && doc.version === SCHEMA_VERSION && Array.isArray(doc.requests) && Array.isArray(doc.groups)) return doc;
  } catch {
    // fall through: keep the unreadable text aside rather than lose it
  }
  localStorage.setItem(`${key}.unreadable`, raw);
  return empty();
}

/**
 * Writes the document. Throws the browser's QuotaExceededError when localStorage is full (the page
 * shows it); nothing is written then.
 */
export function save(workspaceId: string, state: LocalState): void {
  localStorage.setItem(storageKey(workspaceId), JSON.stringify(state));
}

// ---- files (IndexedDB) ----

const DB_NAME = 'assay-local-requests';
const STORE = 'files';

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function tx<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await openDb();
  try {
    return await new Promise<T>((resolve, reject) => {
      const t = db.transaction(STORE, mode);
      const r = work(t.objectStore(STORE));
      t.oncomplete = () => resolve(r.result);
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error);
    });
  } finally {
    db.close();
  }
}

/** Keeps `file` for workspace `workspaceId` under a new id, which it returns. Refuses files over {@link MAX_FILE_BYTES}. */
export async function putFile(workspaceId: string, file: File): Promise<string> {
  if (file.size > MAX_FILE_BYTES)
    throw new Error(`${file.name} is ${file.size} bytes; files up to ${MAX_FILE_BYTES} bytes (10 MiB) can be kept.`);
  const id = newId();
  const blob = new Blob([await file.arrayBuffer()], { type: file.type });
  await tx('readwrite', (s) => s.put(blob, `${workspaceId}/${id}`));
  return id;
}

/** The file kept under `fileId`, or undefined when it is gone (browser data cleared). */
export async function getFile(workspaceId: string, fileId: string): Promise<Blob | undefined> {
  return (
    (await tx<Blob | undefined>(
      'readonly',
      (s) => s.get(`${workspaceId}/${fileId}`) as IDBRequest<Blob | undefined>,
    )) ?? undefined
  );
}

/** Forgets the file kept under `fileId` (a removed row, a deleted request). */
export async function deleteFile(workspaceId: string, fileId: string): Promise<void> {
  await tx('readwrite', (s) => s.delete(`${workspaceId}/${fileId}`));
}
