/* global setTimeout */
/** Node's `timers.setImmediate` for the Postman library bundle (xml2js's asynchronous mode, unused: Postman parses synchronously). */
export const setImmediate = (fn, ...args) => setTimeout(() => fn(...args), 0);
export default { setImmediate };
