/**
 * The component schemas of the mock journal (api/routes/mock-requests.ts, docs/mocks.md "Journal
 * and verification"): spread into the document's schemas (api/openapi/components.ts `SCHEMAS`).
 */

const text = { type: 'string' } as const;
const nullableId = { type: ['string', 'null'] } as const;

/** A contract violation (src/domain/mocks.ts `MockViolation`). */
const violation = {
  type: 'object',
  required: ['in', 'field', 'message'],
  properties: {
    in: { enum: ['body', 'query', 'header', 'path', 'response'] },
    field: { type: 'string', description: 'JSON Pointer in the body, or the parameter name.' },
    message: text,
  },
} as const;

export const MOCK_JOURNAL_SCHEMAS = {
  MockJournalEntry: {
    type: 'object',
    description:
      'A request a mock received and how it was answered (src/domain/mocks.ts `MockJournalEntryView`). Secret headers are `***`; the body is its first 16 KiB (parsed JSON when whole JSON).',
    required: [
      'id',
      'designId',
      'collectionId',
      'scope',
      'method',
      'path',
      'query',
      'headers',
      'status',
      'fault',
      'delayMs',
      'violations',
      'source',
      'receivedAt',
    ],
    properties: {
      id: { type: 'string', description: '`mreq_…`.' },
      designId: nullableId,
      collectionId: nullableId,
      scope: { type: ['string', 'null'], description: "The request's scope; null for the shared state." },
      method: text,
      path: { type: 'string', description: 'Within the workspace, without `/mock/{ws}` and the scope segment.' },
      query: { type: 'string', description: 'The query string without `?`.' },
      headers: { type: 'object', additionalProperties: text },
      body: { description: 'Absent when the request had none.' },
      status: { type: 'integer', description: 'The status answered; 0 for a connection fault.' },
      fault: { enum: ['connection-reset', 'empty-response', 'malformed-chunk', 'random-data', 'status', null] },
      delayMs: { type: 'integer' },
      violations: { type: 'array', items: violation },
      source: { enum: ['mock', 'proxy'] },
      receivedAt: { type: 'string', format: 'date-time' },
    },
  },
  MockRequestsDeleted: {
    type: 'object',
    required: ['deleted'],
    properties: { deleted: { type: 'integer', description: 'Entries deleted.' } },
  },
} as const;
