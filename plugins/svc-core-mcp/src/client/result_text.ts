/** A `tools/call` result as the text of a tool result. */
import type { ToolOutput } from "../../../../src/plugin/api.ts";
import type { McpCallResult } from "./types.ts";
import { toolImages } from "../../../../src/tool/images.ts";

/**
 * Text parts as they are; images, audio and binary resources as a one-line note (the model gets
 * text only); structured content as JSON when there is no text. `isError` makes an error result.
 * Image parts are also kept as the result's images, which svc's own MCP server passes on.
 */
export function resultOutput(tool: string, result: McpCallResult): ToolOutput {
  const parts = Array.isArray(result.content) ? result.content.map(contentText) : [];
  let text = parts.filter((part) => part !== "").join("\n");
  if (!text && result.structuredContent !== undefined) {
    text = JSON.stringify(result.structuredContent, null, 2);
  }
  // The questions the server asked meanwhile, and who answered them, end the result.
  const notes = result.notes?.length ? `\n${result.notes.join("\n")}` : "";
  const images = toolImages(
    Array.isArray(result.content) ? result.content.filter((item) => item?.type === "image") : [],
  );
  const attached = images ? { images } : {};
  if (result.isError) {
    return {
      content: `Error: ${tool} failed: ${text || "(no details)"}${notes}`,
      ok: false,
      ...attached,
    };
  }
  return { content: `${text || "(no content)"}${notes}`, ...attached };
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
