/**
 * `Event` and `EventTarget`, which chai 6 creates at load time (for its plugin events) and a bare
 * V8 context lacks: the minimum of the DOM interfaces (https://dom.spec.whatwg.org/#interface-eventtarget)
 * chai uses. Imported before chai by pm.js.
 */
if (typeof globalThis.Event !== 'function') {
  globalThis.Event = class Event {
    constructor(type, init = {}) {
      this.type = String(type);
      this.bubbles = Boolean(init.bubbles);
      this.cancelable = Boolean(init.cancelable);
      this.defaultPrevented = false;
      this.target = null;
    }
    preventDefault() {
      if (this.cancelable) this.defaultPrevented = true;
    }
  };
}
if (typeof globalThis.EventTarget !== 'function') {
  globalThis.EventTarget = class EventTarget {
    constructor() {
      this._listeners = new Map();
    }
    addEventListener(type, fn) {
      if (typeof fn !== 'function' && !(fn && typeof fn.handleEvent === 'function')) return;
      const list = this._listeners.get(type) ?? [];
      if (!list.includes(fn)) list.push(fn);
      this._listeners.set(type, list);
    }
    removeEventListener(type, fn) {
      const list = this._listeners.get(type);
      if (list)
        this._listeners.set(
          type,
          list.filter((l) => l !== fn),
        );
    }
    dispatchEvent(event) {
      event.target = this;
      for (const fn of [...(this._listeners.get(event.type) ?? [])]) {
        if (typeof fn === 'function') fn.call(this, event);
        else fn.handleEvent(event);
      }
      return !event.defaultPrevented;
    }
  };
}
