/** The part of `postman-collection-transformer` (Postman's Collection v1 ↔ v2 converter, no types of its own) the importer uses. */
declare module 'postman-collection-transformer' {
  interface ConvertOptions {
    inputVersion: string;
    outputVersion: string;
    retainIds?: boolean;
  }
  const transformer: {
    /** Converts a whole collection; calls `callback` (synchronously) with the result. */
    convert(collection: unknown, options: ConvertOptions, callback: (error: unknown, result: unknown) => void): unknown;
  };
  export default transformer;
}
