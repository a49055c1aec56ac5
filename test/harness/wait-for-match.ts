/**
 * The one way tests wait for something that is logged as it happens (a request at the fake model, an RPC
 * event): the first matching entry already in the log, or the first matching one emitted later, within a time
 * limit. No polling.
 */
import type { EventEmitter } from "node:events";

export function waitForMatch<T>(
  log: readonly T[],
  emitter: EventEmitter,
  eventName: string,
  predicate: (item: T) => boolean,
  timeoutMs: number,
  describeTimeout: () => string,
): Promise<T> {
  const found = log.find(predicate);
  if (found !== undefined) return Promise.resolve(found);
  return new Promise((resolve, reject) => {
    const onItem = (item: T) => {
      if (!predicate(item)) return;
      clearTimeout(timer);
      emitter.off(eventName, onItem);
      resolve(item);
    };
    const timer = setTimeout(() => {
      emitter.off(eventName, onItem);
      reject(new Error(describeTimeout()));
    }, timeoutMs);
    emitter.on(eventName, onItem);
  });
}
