/**
 * The ids a task has in a trace (OpenTelemetry's: a 32-hex trace id, 16-hex span ids), derived from ids we
 * already keep, so the `/subagent-trace` export and the lifecycle events name the same spans without anything
 * being stored or computed on the dispatch path beyond this. A task id is a UUID v7: its last 16 hex digits are
 * random, which is what a span id needs; the delegation a trace covers (a task, batch or chain) gives the trace
 * id, its 32 hex digits. Pure.
 */

const hexOf = (uuid: string): string => uuid.replace(/-/g, "").toLowerCase();

/** The trace id of the delegation whose id (a task's, a batch's or a chain's) is `rootId`. */
export function traceIdOf(rootId: string): string {
  return hexOf(rootId).padStart(32, "0").slice(-32);
}

/** A task's span id: the random end of its id. */
export function taskSpanId(taskId: string): string {
  return hexOf(taskId).padStart(16, "0").slice(-16);
}

/** The span id of a batch or chain (its own span, above its parts): its id's random end, first bit flipped. */
export function workflowSpanId(workflowId: string): string {
  const hex = taskSpanId(workflowId);
  return `${(Number.parseInt(hex[0]!, 16) ^ 8).toString(16)}${hex.slice(1)}`;
}
