/**
 * The `http_request` tool: one request, no redirects followed, a timeout and a response size cap,
 * and no private network unless the operator allows it (see network-guard.ts).
 */
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { z } from "zod";
import { CappedBuffer } from "./output-cap";
import { PrivateAddressError, guardedLookup, isPrivateAddress } from "./network-guard";
import { defineTool, toolError, type ToolImplementation, type ToolResult } from "./tool-types";

export interface HttpRequestToolOptions {
  allowPrivateNetwork: boolean;
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
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Promise.resolve(toolError(`refused: only http and https URLs (got ${url.protocol})`));
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  // IP literals never go through `lookup`, so they are checked here.
  if (!options.allowPrivateNetwork && net.isIP(host) && isPrivateAddress(host)) {
    return Promise.resolve(toolError(new PrivateAddressError(host, host).message));
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
        lookup: options.allowPrivateNetwork ? undefined : (guardedLookup as never),
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
      if (err instanceof PrivateAddressError || err.code === "EPRIVATEADDRESS") done(toolError(err.message));
      else if (signal?.aborted) done(toolError("cancelled"));
      else done(toolError(`request failed: ${err.message}`));
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
      (options.allowPrivateNetwork ? "" : " Private, loopback and link-local addresses are refused."),
    input: inputSchema,
    run: (input, signal) => httpRequest(input, options, signal),
  });
}
