/**
 * Checks the plain-data registrations a sandboxed plugin's Worker sends. The Worker runs the
 * plugin's code, which can post any message, so svc validates every item's shape before the rest
 * of svc sees it. An agent type keeps only the `deny` entries of its `tool_permission`: a
 * third-party plugin may tighten the tool policy of its sub-agents, never loosen it.
 */
import * as z from "zod";
import { ITEM, type Registrations } from "./registrars.ts";
import type { RegistrationData } from "./sandbox_protocol.ts";
import type { ElicitationRequest } from "../tool/types.ts";

const text = z.string().max(1_000_000);
const name = z.string().min(1).max(200);
const strings = z.array(z.string().max(10_000)).max(1000);

const SCHEMAS = {
  providers: z.looseObject({
    id: name,
    baseUrl: z.string().max(2000),
    defaultModel: z.string().max(500),
    headers: z.record(z.string(), z.string()).optional(),
  }),
  types: z.looseObject({
    name,
    system_prompt: text,
    model: z.string().max(500).optional(),
    tool_permission: z.record(z.string(), z.unknown()).optional(),
    skills: strings.optional(),
    description: text.optional(),
  }),
  teams: z.looseObject({
    name,
    stages: z.array(z.union([name, z.looseObject({ type: name })])).max(100),
    description: text.optional(),
    tags: strings.optional(),
  }),
  skills: z.looseObject({
    name,
    content: text,
    description: text.optional(),
    tags: strings.optional(),
  }),
  services: z.looseObject({ name }),
  fixtures: z.looseObject({
    id: name,
    prompt: text,
    files: z.record(z.string(), z.string()).optional(),
    expected: strings.optional(),
    verify: z.record(z.string(), z.unknown()).optional(),
  }),
} as const;

/** The data registrations, checked; throws `<hook> failed: Invalid <item> ...` on the first bad one. */
export function checkedData(
  data: RegistrationData,
): Omit<Registrations, "tools" | "commands"> {
  const out = {} as Record<keyof typeof SCHEMAS, unknown[]>;
  for (const kind of Object.keys(SCHEMAS) as Array<keyof typeof SCHEMAS>) {
    const items = Array.isArray(data?.[kind]) ? data[kind] as unknown[] : [];
    out[kind] = items.map((item) => {
      const parsed = SCHEMAS[kind].safeParse(item);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue.path.length ? `"${issue.path.join(".")}" ` : "";
        const hook = kind === "types" ? "register_types" : `register_${kind}`;
        throw new Error(`${hook} failed: Invalid ${ITEM[kind]}: ${where}${issue.message}`);
      }
      return kind === "types" ? denyOnly(parsed.data as Record<string, unknown>) : parsed.data;
    });
  }
  return out as unknown as Omit<Registrations, "tools" | "commands">;
}

function denyOnly(type: Record<string, unknown>): Record<string, unknown> {
  const permission = type.tool_permission as Record<string, unknown> | undefined;
  if (!permission) return type;
  const kept = Object.fromEntries(Object.entries(permission).filter(([, v]) => v === "deny"));
  return { ...type, tool_permission: kept };
}

const ELICITATION = z.object({
  server: name,
  message: text,
  mode: z.string().max(200),
  requested_schema: z.record(z.string(), z.unknown()),
});

/** A server's question a Worker puts to the configured approver, when it has the right shape. */
export function elicitationRequest(value: unknown): ElicitationRequest | undefined {
  const parsed = ELICITATION.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
