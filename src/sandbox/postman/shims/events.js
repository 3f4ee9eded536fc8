/* global module */
/**
 * The part of Node's `events` that xml2js uses (its Parser extends the module itself, Node's
 * `module.exports = EventEmitter`), for the Postman library bundle (src/sandbox/build-libraries.ts
 * aliases `events` here). CommonJS, as Node's is.
 */
class EventEmitter {
  constructor() {
    this._events = {};
  }
  on(name, fn) {
    (this._events[name] ||= []).push(fn);
    return this;
  }
  addListener(name, fn) {
    return this.on(name, fn);
  }
  once(name, fn) {
    const once = (...args) => {
      this.removeListener(name, once);
      fn.apply(this, args);
    };
    return this.on(name, once);
  }
  removeListener(name, fn) {
    if (this._events[name]) this._events[name] = this._events[name].filter((f) => f !== fn);
    return this;
  }
  removeAllListeners(name) {
    if (name === undefined) this._events = {};
    else delete this._events[name];
    return this;
  }
  emit(name, ...args) {
    const list = this._events[name];
    if (!list || !list.length) {
      if (name === 'error') throw args[0];
      return false;
    }
    for (const fn of list.slice()) fn.apply(this, args);
    return true;
  }
  listeners(name) {
    return (this._events[name] || []).slice();
  }
}
EventEmitter.EventEmitter = EventEmitter;
module.exports = EventEmitter;
