/* global TextDecoder */
/** Node's `string_decoder` for the Postman library bundle: sax decodes Buffers with it; Postman scripts parse strings. */
export class StringDecoder {
  write(chunk) {
    return typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk);
  }
  end() {
    return '';
  }
}
export default { StringDecoder };
