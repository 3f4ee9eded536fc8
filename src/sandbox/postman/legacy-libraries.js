/**
 * The libraries Postman's legacy sandbox interface gives every script as globals, in the versions
 * postman-sandbox 6.7.4 (Newman 6.2.2) bundles (its lib/sandbox/postman-legacy-interface.js):
 * `_` lodash 3.10.2 (`require('lodash')` is lodash 4), `tv4` 1.3.0, and `xml2Json(text)` over
 * xml2js 0.6.2 with Postman's options (lib/sandbox/xml2Json.js).
 */
import lodash3 from 'lodash3';
import tv4 from 'tv4';
import xml2js from 'xml2js';

const XML2JSON_OPTIONS = { explicitArray: false, async: false, trim: true, mergeAttrs: false };

/** `xml2Json(text)`: the document as xml2js reads it; `{}` … as Postman's, which swallows parse errors. */
export function xml2Json(text) {
  let json = {};
  xml2js.parseString(text, XML2JSON_OPTIONS, (_err, result) => {
    json = result;
  });
  return json;
}

export { lodash3, tv4 };
