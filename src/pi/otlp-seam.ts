/**
 * The seam between a delegation's end and its export to an OpenTelemetry collector: when no OTLP endpoint is set
 * (src/trace/otlp-settings.ts), a delegation's end costs one look at the environment and nothing else; when one
 * is, the export runs after the result was handed back, off the dispatch path, and only then are the trace reader
 * and OpenTelemetry's packages imported (src/trace/otlp-export.ts). A failed export is said once per session.
 */
import { reportOnceByKey, type WarningSink } from "../agents/warnings.ts";
import { readSubagentDepth } from "../shared/nesting.ts";
import { loadOnce } from "../shared/pi-process.ts";
import { agentDir } from "../shared/this-process.ts";
import { exportFailedWarning, exportPlan } from "../trace/otlp-settings.ts";

const WARNING_KEY = "otlp-export-failed";

/** OpenTelemetry's packages and the trace's reader, loaded by the first export (two at once share the load). */
const loadExport = loadOnce(() => import("../trace/otlp-export.ts"));

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
