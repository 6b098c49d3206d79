/**
 * Preloaded into a runtime process by a test (NODE_OPTIONS=--require <this file>)
 * to crash it at one exact point: the moment Redis answers the first commit
 * that records a delivery (a key starting with CRASH_AFTER_COMMIT_PREFIX, the
 * state store's delivered-marker prefix), the process SIGKILLs itself, before
 * the code that awaits that commit can acknowledge its job. The commit is
 * applied and the job is not: the exactly-once race, every time, instead of a
 * kill sent from outside that may land before or after the window.
 */
'use strict';
const prefix = process.env.CRASH_AFTER_COMMIT_PREFIX;
if (prefix) {
  const { Redis } = require('ioredis');
  const noDelivery = `${prefix}-`;
  const send = Redis.prototype.sendCommand;
  Redis.prototype.sendCommand = function sendCommand(command, stream) {
    const result = send.call(this, command, stream);
    const args = command && Array.isArray(command.args) ? command.args : [];
    const records = args.some((a) => typeof a === 'string' && a.startsWith(prefix) && a !== noDelivery);
    // registered before the caller's own await on the reply, so it runs first
    if (records && command.promise)
      command.promise.then(
        () => process.kill(process.pid, 'SIGKILL'),
        () => undefined,
      );
    return result;
  };
}
