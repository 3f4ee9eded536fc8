/**
 * Designer drafts (docs/console.md "The designer"): the document being edited is kept in this
 * browser's localStorage under `assay.designer.v1.<workspaceId>.<testCaseId or "new">` a moment
 * after each edit, with the version it was made from, so a closed tab or a crash loses nothing;
 * a save or a discard removes it. A draft that does not parse is removed. Nothing here talks to
 * the Assay API. Pure apart from the `Storage` handed in.
 */
import type { TestCaseDoc } from '../model/doc';

/** One kept draft: the document, the server version it was based on, and when it was kept. */
export interface Draft {
  doc: TestCaseDoc;
  /** The test case's `version` the edit started from (absent for a new test case). */
  baseVersion?: string | number;
  /** ISO 8601, when the draft was kept. */
  savedAt: string;
}

/** The localStorage key of a test case's draft. */
export function draftKey(workspaceId: string, testCaseId: string | undefined): string {
  return `assay.designer.v1.${workspaceId}.${testCaseId ?? 'new'}`;
}

/** The draft kept under `key`, or undefined (none, or one that does not parse: then it is removed). */
export function readDraft(storage: Storage, key: string): Draft | undefined {
  const text = storage.getItem(key);
  if (!text) return undefined;
  try {
    const draft = JSON.parse(text) as Draft;
    if (draft && typeof draft === 'object' && draft.doc && Array.isArray(draft.doc.flow)) return draft;
  } catch {
    /* unreadable: dropped below */
  }
  storage.removeItem(key);
  return undefined;
}

/** Keeps `doc` as the draft under `key`; a full storage is ignored (the draft is a convenience). */
export function writeDraft(storage: Storage, key: string, doc: TestCaseDoc, baseVersion?: string | number): void {
  try {
    const draft: Draft = {
      doc,
      savedAt: new Date().toISOString(),
      ...(baseVersion !== undefined ? { baseVersion } : {}),
    };
    storage.setItem(key, JSON.stringify(draft));
  } catch {
    /* quota exceeded: no draft */
  }
}

/** Forgets the draft under `key`. */
export function dropDraft(storage: Storage, key: string): void {
  storage.removeItem(key);
}
