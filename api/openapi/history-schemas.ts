/**
 * The component schemas of test history and flaky test cases (api/routes/history.ts,
 * docs/history.md): spread into the document's schemas (api/openapi/components.ts `SCHEMAS`).
 */

const timestamp = { type: 'string', format: 'date-time', description: 'ISO 8601 UTC with milliseconds.' } as const;
const text = { type: 'string' } as const;
const ms = (what: string) => ({
  type: ['integer', 'null'],
  description: `${what}, ms; null when no run passed or failed.`,
});
const rate = {
  type: ['number', 'null'],
  minimum: 0,
  maximum: 1,
  description: 'passed / (passed + failed), 0 to 1; null when none passed or failed.',
} as const;
const status = { enum: ['passed', 'failed', 'skipped'] } as const;

/** The figures of the flakiness rule's verdict (src/history/flaky.ts), on a test case or a node. */
export const FLIP_FIGURES = {
  flips: { type: 'integer', description: 'Outcome changes (passed ↔ failed) in the window.' },
  window: {
    type: 'integer',
    description:
      'Outcomes looked at: the last runs (at most ASSAY_FLAKY_WINDOW, default 10) that passed or failed, at the current definition of the test case.',
  },
  flipRate: { type: 'number', minimum: 0, maximum: 1, description: 'flips / (window − 1).' },
} as const;

/** One flag of the flakiness rule (src/history/flaky.ts). */
const flakyFigures = {
  ...FLIP_FIGURES,
  flaggedAt: { ...timestamp, description: 'When the rule first flagged it (kept while it stays flagged).' },
} as const;

export const HISTORY_SCHEMAS = {
  TestCaseHistory: {
    type: 'object',
    description:
      'A test case\'s outcomes over its last runs (docs/history.md "Test history"), newest first. `stats` and `nodes` are figures over `entries`; `lastFailure` and `failingSince` look at the whole kept history matching the filters.',
    required: ['testCaseId', 'name', 'stats', 'lastFailure', 'failingSince', 'flaky', 'entries', 'nodes'],
    properties: {
      testCaseId: text,
      name: { type: 'string', description: "The test case's name (its name in its newest run once deleted)." },
      stats: {
        type: 'object',
        required: ['runs', 'passed', 'failed', 'skipped', 'passRate', 'medianMs', 'p95Ms'],
        properties: {
          runs: { type: 'integer' },
          passed: { type: 'integer' },
          failed: { type: 'integer' },
          skipped: { type: 'integer' },
          passRate: rate,
          medianMs: ms('Median duration of the runs that passed or failed'),
          p95Ms: ms('95th percentile (nearest rank) of the same'),
        },
      },
      lastFailure: {
        type: ['object', 'null'],
        description: 'Its newest failure; null when it never failed in the kept history.',
        required: ['runId', 'ranAt', 'message', 'node', 'commit'],
        properties: {
          runId: text,
          ranAt: timestamp,
          message: {
            type: ['string', 'null'],
            description: 'The first failure message (at most 1,000 characters, secrets masked).',
          },
          node: { type: ['string', 'null'], description: 'The failed node id (`ref › id` inside a sub-flow).' },
          commit: { type: ['string', 'null'], description: "The commit the run's trigger carried, if any." },
        },
      },
      failingSince: {
        type: ['object', 'null'],
        description:
          'The first failure of the current failing streak (the failures after its newest pass; skipped runs neither pass nor break it); null when its newest run that passed or failed passed.',
        required: ['runId', 'ranAt', 'commit'],
        properties: { runId: text, ranAt: timestamp, commit: { type: ['string', 'null'] } },
      },
      flaky: {
        type: 'array',
        description: 'Where the flakiness rule flags it now, by runner and environment.',
        items: {
          type: 'object',
          required: ['runner', 'environment', 'flips', 'window', 'flipRate', 'flaggedAt'],
          properties: { runner: text, environment: text, ...flakyFigures },
        },
      },
      entries: {
        type: 'array',
        items: {
          type: 'object',
          required: [
            'runId',
            'position',
            'ranAt',
            'status',
            'durationMs',
            'runner',
            'environment',
            'deploymentId',
            'trigger',
            'kind',
            'commit',
            'failure',
            'failedNode',
            'flaky',
            'quarantined',
            'definitionHash',
          ],
          properties: {
            runId: { type: 'string', description: 'The run (it may have been deleted by retention since).' },
            position: { type: 'integer', description: 'Its position in the run, from 0.' },
            ranAt: { ...timestamp, description: 'When the run started.' },
            status,
            durationMs: { type: 'integer' },
            runner: text,
            environment: text,
            deploymentId: { type: ['string', 'null'] },
            trigger: { enum: ['api', 'schedule', 'webhook'] },
            kind: { enum: ['functional', 'performance'] },
            commit: { type: ['string', 'null'] },
            failure: { type: ['string', 'null'] },
            failedNode: { type: ['string', 'null'] },
            flaky: { type: 'boolean', description: 'Whether the flakiness rule flagged it after this run.' },
            quarantined: { type: 'boolean', description: 'It failed but was quarantined (it did not fail its run).' },
            definitionHash: {
              type: 'string',
              description: 'SHA-256 of the test case as the run froze it: equal hashes, unchanged test case.',
            },
          },
        },
      },
      nodes: {
        type: 'array',
        description:
          'Each node over the entries (nested nodes by their id, sub-flow nodes as `ref › id`); `runs` counts the runs in which it passed or failed.',
        items: {
          type: 'object',
          required: ['id', 'type', 'runs', 'passed', 'failed', 'passRate', 'medianMs', 'p95Ms', 'assertions'],
          properties: {
            id: text,
            name: text,
            type: text,
            runs: { type: 'integer' },
            passed: { type: 'integer' },
            failed: { type: 'integer' },
            passRate: rate,
            medianMs: ms('Median duration'),
            p95Ms: ms('95th percentile duration'),
            assertions: {
              type: 'array',
              items: {
                type: 'object',
                required: ['label', 'runs', 'passed'],
                properties: {
                  label: { type: 'string', description: 'The assertion\'s name, else "target operator".' },
                  runs: { type: 'integer' },
                  passed: { type: 'integer' },
                },
              },
            },
          },
        },
      },
    },
  },
  FlakyList: {
    type: 'object',
    description:
      'The test cases the flakiness rule flags now (docs/history.md "Flaky tests"), highest flip rate first.',
    required: ['items'],
    properties: {
      items: {
        type: 'array',
        items: {
          type: 'object',
          required: [
            'testCaseId',
            'name',
            'runner',
            'environment',
            'flips',
            'window',
            'flipRate',
            'flaggedAt',
            'lastRunId',
          ],
          properties: {
            testCaseId: text,
            name: text,
            runner: text,
            environment: text,
            ...flakyFigures,
            lastRunId: { type: 'string', description: 'The run after which the rule last evaluated it.' },
          },
        },
      },
    },
  },
} as const;
