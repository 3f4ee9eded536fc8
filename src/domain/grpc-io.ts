/** The input and output of the activity that makes a gRPC node's call (docs/async.md "gRPC"). */

/** What the gRPC activity is given. */
export interface GrpcCallInput {
  [field: string]: unknown;
}

/** What the gRPC activity answers. */
export interface GrpcCallOutput {
  [field: string]: unknown;
}
