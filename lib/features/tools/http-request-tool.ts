/**
 * The `http_request` tool: one request, no redirects followed, a timeout and a response size cap,
 * through the same outbound guard as webhooks and notices (lib/core/outbound): no private network
 * unless the admin's allow-list names the host.
 */
import http from "node:http";
import https from "node:https";
import { z } from "zod";
import { CappedBuffer } from "./output-cap";
import { normalizeHost } from "@/lib/core/outbound/address-policy";
import { OutboundRefused, connectOptions, type OutboundPolicy } from "@/lib/core/outbound/outbound-guard";
import { defineTool, toolError, type ToolImplementation, type ToolResult } from "@/lib/core/agent/tool-types";

export interface HttpRequestToolOptions {
  outbound: OutboundPolicy;
  timeoutMs: number;
  outputCap: number;
}

const inputSchema = z.object({
  url: z.string().min(1).describe("absolute http or https URL"),
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]).default("GET"),
  headers: z.record(z.string(), z.string()).default({}),
  body: z.string().optional().describe("request body, sent as is"),
});
type HttpRequestInput = z.output<typeof inputSchema>;

export function httpRequest(
  input: HttpRequestInput,
  options: HttpRequestToolOptions,
  signal?: AbortSignal,
): Promise<ToolResult> {
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    return Promise.resolve(toolError(`invalid URL: ${input.url}`));
  }
  let connect: ReturnType<typeof connectOptions>;
  try {
    connect = connectOptions(url, options.outbound);
  } catch (error) {
    return Promise.resolve(toolError((error as Error).message));
  }

  return new Promise((resolve) => {
    const transport = url.protocol === "https:" ? https : http;
    const body = new CappedBuffer(options.outputCap);
    let settled = false;
    const done = (result: ToolResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = transport.request(
      url,
      {
        method: input.method,
        headers: input.headers,
        lookup: connect.lookup as never,
        agent: connect.agent,
        signal,
      },
      (response) => {
        response.on("data", (chunk: Buffer) => {
          body.push(chunk);
          // Stop downloading once the cap is reached; the rest is dropped anyway.
          if (body.truncated) response.destroy();
        });
        const finish = () => {
          const status = response.statusCode ?? 0;
          const location = response.headers.location ? `\nlocation: ${response.headers.location}` : "";
          const type = response.headers["content-type"] ? `\ncontent-type: ${response.headers["content-type"]}` : "";
          done({
            output: `HTTP ${status} ${response.statusMessage ?? ""}`.trimEnd() + type + location + `\n\n${body.text()}`,
            isError: status >= 400,
          });
        };
        response.on("end", finish);
        response.on("close", finish);
        response.on("error", () => finish());
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      done(toolError(`timed out after ${options.timeoutMs} ms: ${input.method} ${url.href}`));
    }, options.timeoutMs);
    request.on("error", (err: NodeJS.ErrnoException) => {
      if (err instanceof OutboundRefused || err.code === "EOUTBOUNDREFUSED") done(toolError(err.message));
      else if (signal?.aborted) done(toolError("cancelled"));
      // One message for refused, reset and unreachable: the answer must not map ports.
      else done(toolError(`request failed: could not connect to ${normalizeHost(url.hostname)}`));
    });
    if (input.body !== undefined) request.write(input.body);
    request.end();
  });
}

export function httpRequestTool(options: HttpRequestToolOptions): ToolImplementation {
  return defineTool({
    name: "http_request",
    description:
      "Make one HTTP request and return the status, content type and body (capped). Redirects are not " +
      "followed." +
      (options.outbound.allowPrivateHosts.includes("*") ? "" : " Private, loopback and link-local addresses are refused."),
    input: inputSchema,
    run: (input, signal) => httpRequest(input, options, signal),
  });
}
