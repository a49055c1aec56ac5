/**
 * A finished delegation sent to an OpenTelemetry collector over OTLP/HTTP: its trace read from disk (the same
 * reader as `/subagent-trace`), turned into the same spans as `--json` (src/trace/trace-spans.ts: same trace and
 * span ids, parents, times, attributes), then handed to OpenTelemetry's own OTLP exporter, which reads the
 * standard `OTEL_EXPORTER_OTLP_*` variables itself (endpoint, headers, timeout). The only module that loads
 * OpenTelemetry's packages, and it is imported only when an endpoint is set (src/trace/otlp-seam.ts).
 */
import { SpanKind, SpanStatusCode, TraceFlags, type HrTime, type SpanContext } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { taskSources } from "../commands/task-lookup.ts";
import { buildTrace } from "./trace.ts";
import { traceSpans, type TraceSpan } from "./trace-spans.ts";
import { lookupTrace } from "./trace-store.ts";

/** Who made the spans (OpenTelemetry's instrumentation scope) and, unless `OTEL_SERVICE_NAME` says, the service. */
const SCOPE_NAME = "pi-subagent-dispatch";

type Resource = ReadableSpan["resource"];

/** The resource the spans come from: `service.name` only (no detectors are loaded for one export). */
function resourceOf(serviceName: string): Resource {
  const attributes = { "service.name": serviceName };
  const resource: Resource = {
    attributes,
    merge: () => resource,
    getRawAttributes: () => Object.entries(attributes),
  };
  return resource;
}

const NANOS_PER_SECOND = 1_000_000_000n;

/** OTLP's decimal nanoseconds as OpenTelemetry's [seconds, nanoseconds]. */
function hrTime(nanos: bigint): HrTime {
  return [Number(nanos / NANOS_PER_SECOND), Number(nanos % NANOS_PER_SECOND)];
}

const STATUS: Record<TraceSpan["status"]["code"], SpanStatusCode> = {
  OK: SpanStatusCode.OK,
  ERROR: SpanStatusCode.ERROR,
  UNSET: SpanStatusCode.UNSET,
};

/** One of our spans as the exporter reads a finished span. */
export function readableSpan(span: TraceSpan, resource: Resource, scopeVersion?: string): ReadableSpan {
  const context = (spanId: string): SpanContext => ({ traceId: span.traceId, spanId, traceFlags: TraceFlags.SAMPLED });
  const start = BigInt(span.startTimeUnixNano);
  const end = BigInt(span.endTimeUnixNano);
  return {
    name: span.name,
    kind: span.kind === "CLIENT" ? SpanKind.CLIENT : SpanKind.INTERNAL,
    spanContext: () => context(span.spanId),
    ...(span.parentSpanId ? { parentSpanContext: context(span.parentSpanId) } : {}),
    startTime: hrTime(start),
    endTime: hrTime(end),
    duration: hrTime(end - start),
    status: { code: STATUS[span.status.code], ...(span.status.message ? { message: span.status.message } : {}) },
    attributes: span.attributes,
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: { name: SCOPE_NAME, ...(scopeVersion ? { version: scopeVersion } : {}) },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

export interface ExportOptions {
  agentDir: string;
  /** Caps the exporter's own timeout (a pi about to exit); absent: the exporter's (`OTEL_EXPORTER_OTLP_TIMEOUT`). */
  timeoutMs?: number;
  serviceName: string;
  now?: () => number;
}

export type ExportOutcome = { ok: true; spans: number } | { ok: false; error: string };

/** Sends the trace of the delegation `rootId` (a task's, batch's or chain's id); never throws. */
export async function exportDelegation(rootId: string, options: ExportOptions): Promise<ExportOutcome> {
  const now = options.now ?? Date.now;
  const found = lookupTrace(
    {
      agentDir: options.agentDir,
      sources: taskSources(
        () => undefined,
        () => options.agentDir,
      ),
      now,
    },
    rootId,
  );
  if (found.kind !== "found") return { ok: false, error: `no trace of ${rootId} on disk` };
  const resource = resourceOf(options.serviceName);
  const spans = traceSpans(buildTrace(found.input), now()).map((span) => readableSpan(span, resource));
  const exporter = new OTLPTraceExporter(options.timeoutMs !== undefined ? { timeoutMillis: options.timeoutMs } : {});
  try {
    const error = await new Promise<string | undefined>((resolve) => {
      exporter.export(spans, (result) => {
        // ExportResultCode.SUCCESS is 0 (its enum lives in a package we do not load for one number).
        resolve(result.code === 0 ? undefined : (result.error?.message ?? "the collector did not take the spans"));
      });
    });
    return error === undefined ? { ok: true, spans: spans.length } : { ok: false, error };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    // Closes the exporter's connections, so nothing of it keeps pi's process alive.
    await exporter.shutdown().catch(() => undefined);
  }
}
