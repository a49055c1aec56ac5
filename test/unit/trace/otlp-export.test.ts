/**
 * The export to an OpenTelemetry collector, below the e2e tests: when a delegation is exported at all (an endpoint
 * set, the main pi only) and how long it may take; the warning; and one of our spans as OpenTelemetry's exporter
 * reads a finished span (same ids, parent, times, status, attributes).
 */
import { describe, expect, it } from "vitest";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { EXIT_EXPORT_MS, exportFailedWarning, exportPlan, otlpTracesEndpoint } from "../../../src/trace/otlp-seam.ts";
import { readableSpan } from "../../../src/trace/otlp-export.ts";
import type { TraceSpan } from "../../../src/trace/trace-spans.ts";

describe("whether and how a finished delegation is exported", () => {
  it("only with an endpoint set, not with OTEL_SDK_DISABLED, and never from a subagent (its delegations are in its root's trace)", () => {
    expect(exportPlan({}, 0, false)).toBeUndefined();
    expect(exportPlan({ OTEL_EXPORTER_OTLP_ENDPOINT: "  " }, 0, false)).toBeUndefined();
    expect(exportPlan({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }, 1, false)).toBeUndefined();
    expect(
      exportPlan({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "TRUE" }, 0, false),
    ).toBeUndefined();
    expect(exportPlan({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }, 0, false)).toEqual({
      endpoint: "http://c:4318/v1/traces",
      giveUpMs: 11_000,
      serviceName: "pi-subagent-dispatch",
    });
  });

  it("goes where the exporter sends it: the traces endpoint as it is, else the endpoint's /v1/traces", () => {
    expect(otlpTracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" })).toBe("http://c:4318/v1/traces");
    expect(
      otlpTracesEndpoint({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t:9/in",
      }),
    ).toBe("http://t:9/in");
  });

  it("in a pi about to exit, gets at most 2 s, or the timeout set when shorter; elsewhere the exporter's own", () => {
    const env = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t:9/in", OTEL_SERVICE_NAME: "mine" };
    expect(exportPlan(env, 0, true)).toMatchObject({ timeoutMs: EXIT_EXPORT_MS, serviceName: "mine" });
    expect(exportPlan({ ...env, OTEL_EXPORTER_OTLP_TIMEOUT: "500" }, 0, true)).toMatchObject({ timeoutMs: 500 });
    expect(
      exportPlan({ ...env, OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: "300", OTEL_EXPORTER_OTLP_TIMEOUT: "500" }, 0, true),
    ).toMatchObject({ timeoutMs: 300, giveUpMs: 1300 });
    const long = exportPlan({ ...env, OTEL_EXPORTER_OTLP_TIMEOUT: "30000" }, 0, false);
    expect(long?.timeoutMs).toBeUndefined();
    expect(long?.giveUpMs).toBe(31_000);
  });

  it("warns with the endpoint, never a user name or password in it", () => {
    const text = exportFailedWarning("http://me:secret@c:4318/v1/traces", "01a2", "connect ECONNREFUSED");
    expect(text).toBe(
      "pi-subagent-dispatch: could not send the trace of 01a2 to the OpenTelemetry collector at http://c:4318/v1/traces: connect ECONNREFUSED. The delegation is not affected; later failures this session are not reported.",
    );
  });
});

describe("one of our spans as the exporter reads it", () => {
  const span: TraceSpan = {
    traceId: "01a244764aee735897d3ac842c74cf99",
    spanId: "a195249f4152e710",
    parentSpanId: "17d3ac842c74cf99",
    name: "chat fake/fake-model",
    kind: "CLIENT",
    startTimeUnixNano: "1764907200123000000",
    endTimeUnixNano: "1764907201623000000",
    attributes: { "gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 100 },
    status: { code: "ERROR", message: "failed" },
  };

  it("keeps its ids, parent, kind, times, status and attributes", () => {
    const resource = {
      attributes: { "service.name": "s" },
      merge: () => resource,
      getRawAttributes: () => [],
    };
    const readable = readableSpan(span, resource);
    expect(readable.spanContext()).toMatchObject({ traceId: span.traceId, spanId: span.spanId });
    expect(readable.parentSpanContext).toMatchObject({ traceId: span.traceId, spanId: "17d3ac842c74cf99" });
    expect(readable.kind).toBe(SpanKind.CLIENT);
    expect(readable.startTime).toEqual([1764907200, 123_000_000]);
    expect(readable.endTime).toEqual([1764907201, 623_000_000]);
    expect(readable.duration).toEqual([1, 500_000_000]);
    expect(readable.status).toEqual({ code: SpanStatusCode.ERROR, message: "failed" });
    expect(readable.attributes).toEqual(span.attributes);
    expect(readable.instrumentationScope.name).toBe("pi-subagent-dispatch");
    const root = readableSpan({ ...span, parentSpanId: undefined, kind: "INTERNAL", status: { code: "OK" } }, resource);
    expect([root.parentSpanContext, root.kind, root.status]).toEqual([
      undefined,
      SpanKind.INTERNAL,
      { code: SpanStatusCode.OK },
    ]);
  });
});
