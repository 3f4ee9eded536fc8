/** The input and output of the activity that runs a WebSocket or SSE node (docs/async.md "WebSocket and SSE"). */

/** What the stream activity is given. */
export interface StreamNodeInput {
  [field: string]: unknown;
}

/** What the stream activity answers. */
export interface StreamNodeOutput {
  [field: string]: unknown;
}
