/**
 * A small OTLP/HTTP receiver on 127.0.0.1 for the export tests: it takes `POST /v1/traces` with a JSON body (what
 * OpenTelemetry's OTLP/HTTP exporter for Node sends), answers 200, and keeps every span it got, read back into
 * the shape `/subagent-trace --json` writes (hex ids, decimal nanosecond strings, attributes as plain values).
 */
import { EventEmitter } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { waitForMatch } from "./wait-for-match.ts";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's span kind number: 1 internal, 3 client. */
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, string | number | boolean>;
  /** OTLP's status code number: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** The `service.name` of the resource the span came with. */
  service?: string;
}

type AnyValue = { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean };
type KeyValue = { key: string; value: AnyValue };

function plain(value: AnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return value.boolValue ?? "";
}

function attributesOf(list: readonly KeyValue[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, plain(kv.value)]));
}

/** The time as a decimal string, whether the exporter wrote a number, a string or `{low, high}`. */
function nanos(value: unknown): string {
  if (typeof value === "object" && value !== null && "low" in value && "high" in value) {
    const { low, high } = value as { low: number; high: number };
    return ((BigInt(high >>> 0) << 32n) | BigInt(low >>> 0)).toString();
  }
  return BigInt(value as string | number).toString();
}

interface OtlpBody {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }>;
  }>;
}

function spansOf(body: OtlpBody): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = attributesOf(resourceSpans.resource?.attributes)["service.name"];
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span): ReceivedSpan => {
        const parent = span["parentSpanId"] as string | undefined;
        return {
          traceId: span["traceId"] as string,
          spanId: span["spanId"] as string,
          ...(parent ? { parentSpanId: parent } : {}),
          name: span["name"] as string,
          kind: span["kind"] as number,
          startTimeUnixNano: nanos(span["startTimeUnixNano"]),
          endTimeUnixNano: nanos(span["endTimeUnixNano"]),
          attributes: attributesOf(span["attributes"] as KeyValue[] | undefined),
          statusCode: ((span["status"] as { code?: number } | undefined)?.code ?? 0) as number,
          ...(typeof service === "string" ? { service } : {}),
        };
      }),
    );
  });
}

export class OtlpReceiver {
  private server: Server | undefined;
  /** Each POST's spans, in the order they arrived (one request a delegation). */
  readonly requests: ReceivedSpan[][] = [];
  private readonly events = new EventEmitter();

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        if (req.method !== "POST" || req.url !== "/v1/traces") {
          res.writeHead(404).end();
          return;
        }
        let body: OtlpBody;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpBody;
        } catch {
          res.writeHead(400).end();
          return;
        }
        const spans = spansOf(body);
        this.requests.push(spans);
        this.events.emit("request", spans);
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    return this;
  }

  /** `http://127.0.0.1:<port>`: the value of `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** The first request whose spans match, received already or still to come. */
  waitForRequest(match: (spans: ReceivedSpan[]) => boolean, timeoutMs: number, what: string): Promise<ReceivedSpan[]> {
    return waitForMatch(
      this.requests,
      this.events,
      "request",
      match,
      timeoutMs,
      () =>
        `timed out after ${timeoutMs} ms waiting for ${what} at the OTLP receiver (${this.requests.length} requests)`,
    );
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** An endpoint on 127.0.0.1 where nothing listens: a port just taken and given back. */
export async function closedEndpoint(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
