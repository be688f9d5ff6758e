/** A `tools/call` result as the text of a tool result. */
import type { ToolOutput } from "../../../../src/plugin/api.ts";
import type { McpCallResult } from "./types.ts";

/**
 * Text parts as they are; images, audio and binary resources as a one-line note (the model gets
 * text only); structured content as JSON when there is no text. `isError` makes an error result.
 */
export function resultOutput(tool: string, result: McpCallResult): ToolOutput {
  const parts = Array.isArray(result.content) ? result.content.map(contentText) : [];
  let text = parts.filter((part) => part !== "").join("\n");
  if (!text && result.structuredContent !== undefined) {
    text = JSON.stringify(result.structuredContent, null, 2);
  }
  if (result.isError) {
    return { content: `Error: ${tool} failed: ${text || "(no details)"}`, ok: false };
  }
  return { content: text || "(no content)" };
}

function contentText(item: Record<string, unknown>): string {
  if (!item || typeof item !== "object") return "";
  switch (item.type) {
    case "text":
      return typeof item.text === "string" ? item.text : "";
    case "image":
    case "audio":
      return `[${item.type} ${String(item.mimeType ?? "")}, ${
        base64Bytes(item.data)
      } bytes; not shown]`;
    case "resource_link":
      return `[resource link: ${String(item.uri ?? "")}${
        item.name ? ` (${String(item.name)})` : ""
      }]`;
    case "resource": {
      const resource = (item.resource ?? {}) as Record<string, unknown>;
      const uri = String(resource.uri ?? "");
      if (typeof resource.text === "string") return `[resource ${uri}]\n${resource.text}`;
      return `[resource ${uri}: ${String(resource.mimeType ?? "binary")}, ${
        base64Bytes(resource.blob)
      } bytes; not shown]`;
    }
    default:
      return `[${String(item.type)} content; not shown]`;
  }
}

function base64Bytes(data: unknown): number {
  return typeof data === "string" ? Math.floor(data.replace(/=+$/, "").length * 3 / 4) : 0;
}
