export { Workspace } from './workspace';
export { ApiKey, KEY_SCOPES, type KeyScope } from './api-key';
export { Environment } from './environment';
export { TestCase, TestCaseTag } from './test-case';
export { Runner, RUNNER_ORDERS, type RunnerOrder } from './runner';
export { Run, queuedRun, DEBUG_RUNNER_NAME, type DebugTestCase, type NewRunFields } from './run';
export { RunTestCaseResult } from './run-test-case-result';
export { RunLoadShard } from './run-load-shard';
export { RunLoadControl } from './run-load-control';
export { Deployment, type DeploymentWebhooks, type OutgoingWebhook } from './deployment';
export { WebhookDelivery, type DeliveryEvent, type DeliveryStatus } from './webhook-delivery';
export { ApiDesign } from './api-design';
export { MockSettings } from './mock-settings';
export { Bundle, BundleBlob, type BundleModule } from './bundle';
export { Folder } from './folder';
export { AuthProfile, AuthToken } from './auth-profile';
export { TestCaseHistory, FlakyTestCase } from './test-case-history';
export { MockJournalEntry } from './mock-journal-entry';
export { MockCollection, MockRecord, MockScope } from './mock-state';
export { NodeExecution } from './node-execution';
export { WorkspaceFile, FileBlob, FileBlobChunk, FILE_CHUNK_BYTES } from './file';
export { RunOriginSlot, RunOriginPace } from './run-origin-gate';
export { User, Session, WorkspaceMember } from './people';
export { AuditEvent, type AuditActor, type AuditChange } from './audit-event';
export { ResourceVersion, VERSIONED_TYPES, type VersionedType } from './resource-version';

import { Workspace } from './workspace';
import { ApiKey } from './api-key';
import { Environment } from './environment';
import { TestCase, TestCaseTag } from './test-case';
import { Runner } from './runner';
import { Run } from './run';
import { RunTestCaseResult } from './run-test-case-result';
import { RunLoadShard } from './run-load-shard';
import { RunLoadControl } from './run-load-control';
import { Deployment } from './deployment';
import { WebhookDelivery } from './webhook-delivery';
import { ApiDesign } from './api-design';
import { MockSettings } from './mock-settings';
import { Bundle, BundleBlob } from './bundle';
import { Folder } from './folder';
import { AuthProfile, AuthToken } from './auth-profile';
import { TestCaseHistory, FlakyTestCase } from './test-case-history';
import { MockJournalEntry } from './mock-journal-entry';
import { MockCollection, MockRecord, MockScope } from './mock-state';
import { NodeExecution } from './node-execution';
import { WorkspaceFile, FileBlob, FileBlobChunk } from './file';
import { RunOriginSlot, RunOriginPace } from './run-origin-gate';
import { User, Session, WorkspaceMember } from './people';
import { AuditEvent } from './audit-event';
import { ResourceVersion } from './resource-version';

/** Every entity, for the data source. */
export const ENTITIES = [
  Workspace,
  ApiKey,
  Environment,
  TestCase,
  TestCaseTag,
  Runner,
  Run,
  RunTestCaseResult,
  RunLoadShard,
  RunLoadControl,
  Deployment,
  WebhookDelivery,
  ApiDesign,
  MockSettings,
  Bundle,
  BundleBlob,
  Folder,
  AuthProfile,
  AuthToken,
  TestCaseHistory,
  FlakyTestCase,
  MockJournalEntry,
  MockCollection,
  MockRecord,
  MockScope,
  NodeExecution,
  WorkspaceFile,
  FileBlob,
  FileBlobChunk,
  RunOriginSlot,
  RunOriginPace,
  User,
  Session,
  WorkspaceMember,
  AuditEvent,
  ResourceVersion,
];
