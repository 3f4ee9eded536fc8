/**
 * Sugar.js as Postman's sandbox has it: postman-sandbox 6.7.4 runs its vendored Sugar ("vedge",
 * lib/vendor/sugar.js) in the sandbox's own realm before any script, so every Postman script sees
 * its prototype methods (`'abc'.has('b')`, `[1, 2].none(3)`, `[1, 2].sum()`, …). Imported here into
 * the Postman library, which runs in a realm of its own (src/sandbox/libraries.ts `realm`): the
 * methods never reach the test case's other scripts.
 */
import 'postman-sandbox/lib/vendor/sugar.js';
