/**
 * Postman's response and request assertions for chai (`pm.response.to.have.status(200)`,
 * `pm.request.to.have.header('X')`, …): the assertions of chai-postman 2.0.1, the version
 * postman-sandbox 6.7.4 (Newman 6.2.2) bundles, with its names, checks and messages, over Assay's
 * views of the request and response (pm.js `responseView`, `requestView`). Its quirks are kept,
 * because Newman has them: `.to.be.unauthorised` and `.to.be.notAcceptable` compare the reason
 * phrase with "Unauthorised" and "Acceptable" and so never pass; `.to.have.header(k, v)` compares
 * the value strictly (a number never equals the header's text); `.to.have.jsonBody(object)`
 * asserts nothing beyond the body being JSON.
 */
/* global _ */

/** Marks the objects the assertions accept. */
export const RESPONSE = Symbol.for('assay.postman.response');
export const REQUEST = Symbol.for('assay.postman.request');

const isResponse = (o) => Boolean(o) && o[RESPONSE] === true;
const isRequest = (o) => Boolean(o) && o[REQUEST] === true;

/** The first line of a JSONError's message, as chai-postman shows it. */
const FIRST_LINE = /(.*?)\n.*/g;

const CLASSES = { info: 1, success: 2, redirection: 3, clientError: 4, serverError: 5 };
const NAMED = {
  accepted: { statusCode: 202, name: 'Accepted' },
  withoutContent: { statusCode: 204, name: 'No Content' },
  badRequest: { statusCode: 400, name: 'Bad Request' },
  unauthorised: { statusCode: 401, name: 'Unauthorised' },
  unauthorized: { statusCode: 401, name: 'Unauthorized' },
  forbidden: { statusCode: 403, name: 'Forbidden' },
  notFound: { statusCode: 404, name: 'Not Found' },
  notAcceptable: { statusCode: 406, name: 'Acceptable' },
  rateLimited: { statusCode: 429, name: 'Too Many Requests' },
};

/** chai-postman as a chai plugin; `Ajv` validates `.jsonSchema`. */
export function chaiPostman(Ajv) {
  return function (chai) {
    const { Assertion } = chai;
    const flag = chai.util.flag;
    /** `expect(obj).to.be.<property>` as a statement. */
    const be = (obj, property) => Reflect.get(new Assertion(obj).to.be, property);

    Assertion.addProperty('postmanRequest', function () {
      this.assert(
        isRequest(this._obj),
        'expecting a postman request object but got #{this}',
        'not expecting a postman request object',
      );
    });
    Assertion.addProperty('postmanResponse', function () {
      this.assert(
        isResponse(this._obj),
        'expecting a postman response object but got #{this}',
        'not expecting a postman response object',
      );
    });
    Assertion.addProperty('postmanRequestOrResponse', function () {
      this.assert(
        isResponse(this._obj) || isRequest(this._obj),
        'expecting a postman request or response object but got #{this}',
        'not expecting a postman request or response object',
      );
    });
    const responseCode = (a) => {
      be(a._obj, 'postmanResponse');
      new Assertion(a._obj).to.have.property('code');
      new Assertion(a._obj.code).to.be.a('number');
    };
    const responseReason = (a) => {
      be(a._obj, 'postmanResponse');
      new Assertion(a._obj).to.have.property('reason');
      new Assertion(a._obj.reason).to.be.a('function');
    };

    Assertion.addMethod('statusCodeClass', function (cls) {
      responseCode(this);
      this.assert(
        Math.floor(this._obj.code / 100) === cls,
        'expected response code to be #{exp}XX but found #{act}',
        'expected response code to not be #{exp}XX',
        cls,
        this._obj.code,
      );
    });
    for (const [name, cls] of Object.entries(CLASSES)) {
      Assertion.addProperty(name, function () {
        responseCode(this);
        this.assert(
          Math.floor(this._obj.code / 100) === cls,
          'expected response code to be #{exp}XX but found #{act}',
          'expected response code to not be #{exp}XX',
          cls,
          this._obj.code,
        );
      });
    }
    Assertion.addProperty('error', function () {
      responseCode(this);
      const cls = Math.floor(this._obj.code / 100);
      this.assert(
        cls === 4 || cls === 5,
        'expected response code to be 4XX or 5XX but found #{act}',
        'expected response code to not be 4XX or 5XX',
        null,
        this._obj.code,
      );
    });
    Assertion.addMethod('statusCode', function (code) {
      responseCode(this);
      this.assert(
        this._obj.code === Number(code),
        'expected response to have status code #{exp} but got #{act}',
        'expected response to not have status code #{act}',
        Number(code),
        this._obj.code,
      );
    });
    Assertion.addMethod('statusReason', function (reason) {
      responseReason(this);
      reason = String(reason);
      this.assert(
        this._obj.reason() === reason,
        'expected response to have status reason #{exp} but got #{act}',
        'expected response to not have status reason #{act}',
        reason,
        this._obj.reason(),
      );
    });
    for (const [name, expected] of Object.entries(NAMED)) {
      Assertion.addProperty(name, function () {
        responseReason(this);
        new Assertion(this._obj).to.have.property('details');
        new Assertion(this._obj.details).to.be.a('function');
        const want = expected.name.toUpperCase();
        const reason = String(this._obj.reason()).toUpperCase();
        const code = Number(this._obj.details().code);
        this.assert(
          reason === want,
          'expected response to have status reason #{exp} but got #{act}',
          'expected response to not have status reason #{act}',
          want,
          reason,
        );
        this.assert(
          code === expected.statusCode,
          'expected response to have status code #{exp} but got #{act}',
          'expected response to not have status code #{act}',
          expected.statusCode,
          code,
        );
      });
    }
    Assertion.addProperty('ok', function () {
      if (!isResponse(this._obj)) {
        this.assert(flag(this, 'object'), 'expected #{this} to be truthy', 'expected #{this} to be falsy');
        return;
      }
      new Assertion(this._obj).to.have.property('reason');
      new Assertion(this._obj.reason).to.be.a('function');
      new Assertion(this._obj).to.have.property('details');
      new Assertion(this._obj.details).to.be.a('function');
      const reason = String(this._obj.reason()).toUpperCase();
      const code = Number(this._obj.details().code);
      this.assert(
        reason === 'OK',
        'expected response to have status reason #{exp} but got #{act}',
        'expected response to not have status reason #{act}',
        'OK',
        reason,
      );
      this.assert(
        code === 200,
        'expected response to have status code #{exp} but got #{act}',
        'expected response to not have status code #{act}',
        200,
        code,
      );
    });
    Assertion.addMethod('status', function (expected) {
      be(this._obj, 'postmanResponse');
      if (typeof expected === 'number') {
        new Assertion(this._obj).to.have.property('code');
        new Assertion(this._obj.code).to.be.a('number');
        this.assert(
          this._obj.code === Number(expected),
          'expected response to have status code #{exp} but got #{act}',
          'expected response to not have status code #{act}',
          Number(expected),
          this._obj.code,
        );
      } else {
        new Assertion(this._obj).to.have.property('reason');
        new Assertion(this._obj.reason).to.be.a('function');
        this.assert(
          this._obj.reason() === expected,
          'expected response to have status reason #{exp} but got #{act}',
          'expected response to not have status reason #{act}',
          expected,
          this._obj.reason(),
        );
      }
    });
    Assertion.addMethod('header', function (key, value) {
      be(this._obj, 'postmanRequestOrResponse');
      new Assertion(this._obj).to.have.property('headers');
      const what = isRequest(this._obj) ? 'request' : 'response';
      const has = this._obj.headers.has(key);
      this.assert(
        has,
        `expected ${what} to have header with key '${String(key)}'`,
        `expected ${what} to not have header with key '${String(key)}'`,
        true,
        has,
      );
      if (arguments.length < 2) return;
      const actual = this._obj.headers.one(key).value;
      this.assert(
        actual === value,
        `expected '${String(key)}' ${what} header to be #{exp} but got #{act}`,
        `expected '${String(key)}' ${what} header to not be #{act}`,
        value,
        actual,
      );
    });
    Assertion.addProperty('withBody', function () {
      be(this._obj, 'postmanResponse');
      new Assertion(this._obj).to.have.property('text');
      new Assertion(this._obj.text).to.be.a('function');
      const text = this._obj.text();
      this.assert(
        typeof text === 'string' && text.length,
        'expected response to have content in body',
        'expected response to not have content in body',
      );
    });
    const jsonError = (obj) => {
      try {
        obj.json();
        return undefined;
      } catch (err) {
        return err.name === 'JSONError' && err.message
          ? err.message.replace(FIRST_LINE, '$1')
          : `${err.name}: ${err.message}`;
      }
    };
    Assertion.addProperty('json', function () {
      be(this._obj, 'postmanResponse');
      new Assertion(this._obj).to.have.property('json');
      new Assertion(this._obj.json).to.be.a('function');
      const error = jsonError(this._obj);
      this.assert(
        !error,
        `expected response body to be a valid json but got error ${error}`,
        'expected response body not to be a valid json',
      );
    });
    Assertion.addMethod('body', function (expected) {
      be(this._obj, 'postmanResponse');
      if (_.isPlainObject(expected)) {
        new Assertion(this._obj).to.have.property('json');
        let json;
        try {
          json = this._obj.json();
        } catch {
          json = undefined;
        }
        this.assert(
          _.isEqual(json, expected),
          'expected response body json to equal #{exp} but got #{act}',
          'expected response body json to not equal #{exp} but got #{act}',
          expected,
          json,
        );
        return;
      }
      new Assertion(this._obj).to.have.property('text');
      const text = this._obj.text();
      if (arguments.length === 0) {
        this.assert(
          typeof text === 'string' && text.length,
          'expected response to have content in body',
          'expected response to not have content in body',
        );
      } else if (expected instanceof RegExp) {
        this.assert(
          expected.exec(text) !== null,
          'expected response body text to match #{exp} but got #{act}',
          'expected response body text #{act} to not match #{exp}',
          expected,
          text,
        );
      } else {
        this.assert(
          _.isEqual(text, expected),
          'expected response body to equal #{exp} but got #{act}',
          'expected response body to not equal #{exp}',
          expected,
          text,
        );
      }
    });
    Assertion.addMethod('jsonBody', function (path, value) {
      be(this._obj, 'postmanResponse');
      new Assertion(this._obj).to.have.property('json');
      let json;
      let error;
      try {
        json = this._obj.json();
      } catch (err) {
        error =
          err.name === 'JSONError' && err.message
            ? err.message.replace(FIRST_LINE, '$1')
            : `${err.name}: ${err.message}`;
      }
      if (arguments.length === 0) {
        this.assert(
          !error,
          `expected response body to be a valid json but got error ${error}`,
          'expected response body not to be a valid json',
        );
        return;
      }
      if (typeof path !== 'string') return;
      this.assert(
        _.has(json, path),
        'expected #{act} in response to contain property #{exp}',
        'expected #{act} in response to not contain property #{exp}',
        path,
        json,
      );
      if (arguments.length > 1) {
        const actual = _.get(json, path);
        this.assert(
          _.isEqual(actual, value),
          `expected response body json at "${path}" to contain #{exp} but got #{act}`,
          `expected response body json at "${path}" to not contain #{exp} but got #{act}`,
          value,
          actual,
        );
      }
    });
    Assertion.addChainableMethod(
      'responseTime',
      function (ms) {
        const n = flag(this, 'number');
        this.assert(
          typeof n === 'number',
          'expected response to have a valid response time but got #{act}',
          'expected response to not have a valid response time but got #{act}',
          null,
          n,
        );
        if (arguments.length)
          this.assert(
            _.isEqual(n, ms),
            'expected response to have a valid response time but got #{act}',
            'expected response to not have a valid response time but got #{act}',
            null,
            n,
          );
      },
      function () {
        be(this._obj, 'postmanResponse');
        new Assertion(this._obj).to.have.property('responseTime');
        flag(this, 'number', this._obj.responseTime);
        this._obj = this._obj.responseTime;
      },
    );
    Assertion.addChainableMethod(
      'responseSize',
      function (size) {
        const n = flag(this, 'number');
        this.assert(
          typeof n === 'number',
          'expected response to have a valid response size but got #{act}',
          'expected response to not have a valid response size but got #{act}',
          null,
          n,
        );
        if (arguments.length)
          this.assert(
            _.isEqual(n, size),
            'expected response size to equal #{act} but got #{exp}',
            'expected response size to not equal #{act} but got #{exp}',
            size,
            n,
          );
      },
      function () {
        be(this._obj, 'postmanResponse');
        new Assertion(this._obj).to.have.property('size');
        const s = this._obj.size();
        const total = (s.header || 0) + (s.body || 0);
        flag(this, 'number', total);
        this._obj = total;
      },
    );
    Assertion.addMethod('jsonSchema', function (schema, options) {
      new Assertion(schema).to.be.an('object');
      const data =
        isResponse(this._obj) || (isRequest(this._obj) && typeof this._obj.json === 'function')
          ? this._obj.json()
          : this._obj;
      // chai-postman 2.0.1's options, with postman-sandbox's ajv 6 (src/sandbox/postman/pm.js).
      const ajv = new Ajv({ allErrors: true, logger: false, ...(options || {}) });
      const valid = ajv.validate(schema, data);
      this.assert(
        valid && !ajv.errors,
        `expected data to satisfy schema but found following errors: \n${ajv.errorsText()}`,
        'expected data to not satisfy schema',
        true,
        valid,
      );
    });
  };
}
