/** Fixture plugin: one registration per hook, so tests can see every hook wired. */
import * as z from "zod";
import type {
  AgentTypeDef,
  CommandDef,
  EvalFixtureDef,
  ProviderDef,
  ServiceDef,
  SkillDef,
  TeamDef,
  Tool,
} from "../../../../src/plugin/api.ts";

type Registrar<T> = { add(item: T): void };

export function register_tools(registry: Registrar<Tool>): void {
  registry.add({
    name: "kitchen_echo",
    category: "read",
    description: "Echoes its text",
    schema: z.object({ text: z.string() }),
    run: (args) => Promise.resolve(String(args.text)),
  });
}

export function register_providers(providers: Registrar<ProviderDef>): void {
  providers.add({ id: "kitchen", baseUrl: "http://127.0.0.1:9", defaultModel: "k-1" });
}

export function register_commands(commands: Registrar<CommandDef>): void {
  commands.add({
    name: "kitchen",
    description: "Says hi",
    run: (_args, io) => {
      io.print("hi");
      return Promise.resolve();
    },
  });
}

export function register_types(types: Registrar<AgentTypeDef>): void {
  types.add({ name: "cook", system_prompt: "You cook." });
}

export function register_teams(teams: Registrar<TeamDef>): void {
  teams.add({ name: "kitchen", stages: ["cook"] });
}

export function register_skills(skills: Registrar<SkillDef>): void {
  skills.add({ name: "knife", content: "# Knife\nCut away from yourself." });
}

export async function register_services(services: Registrar<ServiceDef>): Promise<void> {
  await Promise.resolve();
  services.add({ name: "kitchen" });
}

export function register_fixtures(fixtures: Registrar<EvalFixtureDef>): void {
  fixtures.add({ id: "kitchen-1", prompt: "Echo hi" });
}
