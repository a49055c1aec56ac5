/**
 * A delegation's end and its export to an OpenTelemetry collector: when no OTLP endpoint is set, a delegation's end
 * costs one look at the environment and nothing else; when one is, the export runs after the result was handed
 * back, off the dispatch path, and only then are the trace reader and OpenTelemetry's packages imported
 * (src/trace/otlp-export.ts). A failed export is said once per session. One module with the plan it follows, so
 * that a delegation's end loads one small module.
 */
import { reportOnceByKey, WARNING_PREFIX, type WarningSink } from "../agents/warnings.ts";
import { readSubagentDepth } from "../shared/nesting.ts";
import { loadOnce } from "../shared/pi-process.ts";
import { oneLine } from "../shared/text.ts";
import { agentDir } from "../shared/this-process.ts";

/*
 * When and how a finished delegation goes to a collector, from the standard variables: only with
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` set, and only from the main pi (a
 * subagent's own delegations are inside its root's trace). A pi about to exit (print and JSON mode) gives an
 * export a short time at most, so a slow or missing collector cannot hold its exit. Pure.
 */

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

/*
 * The export itself, started by the dispatch paths when a delegation ended.
 */
const WARNING_KEY = "otlp-export-failed";

/** OpenTelemetry's packages and the trace's reader, loaded by the first export (two at once share the load). */
const loadExport = loadOnce(() => import("./otlp-export.ts"));

/**
 * Exports the delegation `rootId` (a task's, batch's or chain's id) once it ended. `exitsSoon`: this pi exits once
 * its answer is out (print and JSON mode), so the export gets a short time at most. Never throws.
 */
export function exportWhenEnded(rootId: string, sink: WarningSink, exitsSoon: boolean): void {
  const plan = exportPlan(process.env, readSubagentDepth(), exitsSoon);
  if (!plan) return;
  const dir = agentDir();
  const fail = (error: string) => reportOnceByKey(WARNING_KEY, exportFailedWarning(plan.endpoint, rootId, error), sink);
  void (async () => {
    // After the result: the caller hands it back first, this runs on a later turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    let giveUp: NodeJS.Timeout | undefined;
    const timedOut = new Promise<{ ok: false; error: string }>((resolve) => {
      giveUp = setTimeout(() => resolve({ ok: false, error: `no answer within ${plan.giveUpMs} ms` }), plan.giveUpMs);
      giveUp.unref();
    });
    try {
      const { exportDelegation } = await loadExport();
      const outcome = await Promise.race([
        exportDelegation(rootId, {
          agentDir: dir,
          serviceName: plan.serviceName,
          ...(plan.timeoutMs !== undefined ? { timeoutMs: plan.timeoutMs } : {}),
        }),
        timedOut,
      ]);
      if (!outcome.ok) fail(outcome.error);
    } finally {
      clearTimeout(giveUp);
    }
  })().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
}
