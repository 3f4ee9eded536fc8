/**
 * Durations as k6 writes them: src/domain/duration.ts (pure, so flow node handlers in the workflow
 * use it too); re-exported here for the load-profile code that has always imported it from here.
 */
export * from '../domain/duration';
