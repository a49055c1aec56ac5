/**
 * When and how a finished delegation goes to an OpenTelemetry collector, from the standard variables: only with
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` set, and only from the main pi (a
 * subagent's own delegations are inside its root's trace). A pi about to exit (print and JSON mode) gives an
 * export a short time at most, so a slow or missing collector cannot hold its exit. Pure.
 */
import { WARNING_PREFIX } from "../agents/warnings.ts";
import { oneLine } from "../shared/text.ts";

/** What an export may take in a pi about to exit, at most (the exporter's own timeout applies when shorter). */
export const EXIT_EXPORT_MS = 2000;
/** OpenTelemetry's default export timeout, when no variable sets one. */
const DEFAULT_TIMEOUT_MS = 10_000;

const nonEmpty = (value: string | undefined): string | undefined => (value?.trim() ? value.trim() : undefined);

/** Where the spans go (as the exporter derives it), or undefined when no endpoint is set: then nothing is sent. */
export function otlpTracesEndpoint(env: NodeJS.ProcessEnv): string | undefined {
  const traces = nonEmpty(env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]);
  if (traces) return traces;
  const base = nonEmpty(env["OTEL_EXPORTER_OTLP_ENDPOINT"]);
  return base ? `${base.replace(/\/+$/, "")}/v1/traces` : undefined;
}

/** The exporter's timeout as the variables set it (`…_TRACES_TIMEOUT`, then `…_TIMEOUT`, in milliseconds). */
function configuredTimeoutMs(env: NodeJS.ProcessEnv): number {
  for (const name of ["OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"]) {
    const value = Number(nonEmpty(env[name]));
    if (Number.isFinite(value) && value > 0) return value;
  }
  return DEFAULT_TIMEOUT_MS;
}

export interface ExportPlan {
  endpoint: string;
  /** The cap handed to the exporter (a pi about to exit), or undefined: the exporter's own timeout. */
  timeoutMs?: number;
  /** How long before the export is given up on, whatever the exporter does. */
  giveUpMs: number;
  serviceName: string;
}

/** Whether (and how) a delegation that ended in this pi is exported: never from a subagent (depth ≥ 1). */
export function exportPlan(env: NodeJS.ProcessEnv, depth: number, exitsSoon: boolean): ExportPlan | undefined {
  const endpoint = otlpTracesEndpoint(env);
  // OpenTelemetry's switch for all of it, honoured as its SDKs do.
  const disabled = nonEmpty(env["OTEL_SDK_DISABLED"])?.toLowerCase() === "true";
  if (!endpoint || depth > 0 || disabled) return undefined;
  const configured = configuredTimeoutMs(env);
  const timeoutMs = exitsSoon ? Math.min(configured, EXIT_EXPORT_MS) : undefined;
  return {
    endpoint,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    giveUpMs: (timeoutMs ?? configured) + 1000,
    serviceName: nonEmpty(env["OTEL_SERVICE_NAME"]) ?? "pi-subagent-dispatch",
  };
}

/** An endpoint as a warning may show it: a user name or password in it left out. */
function shownEndpoint(endpoint: string): string {
  try {
    const url = new URL(endpoint);
    url.username = "";
    url.password = "";
    return url.toString();
  } catch {
    return oneLine(endpoint, 200);
  }
}

/** The one warning of a session whose export failed (later failures are not repeated). */
export function exportFailedWarning(endpoint: string, rootId: string, error: string): string {
  return `${WARNING_PREFIX}could not send the trace of ${rootId} to the OpenTelemetry collector at ${shownEndpoint(endpoint)}: ${oneLine(error, 300)}. The delegation is not affected; later failures this session are not reported.`;
}
