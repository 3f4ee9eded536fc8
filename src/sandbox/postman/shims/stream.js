/** Node's `stream` for the Postman library bundle: sax only subclasses `Stream` for its streaming API, which Postman scripts do not use. */
export class Stream {}
export default { Stream };
