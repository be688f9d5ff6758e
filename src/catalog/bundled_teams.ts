/**
 * The two bundled teams. Each stage's result reaches the next stages through the stage brief
 * (capped at 4000 characters a stage), so the stages that produce something long keep it in a
 * file and hand over its path. A stage's `handoff_note` is shown to the next stage, so it speaks
 * to that stage. The stages that must write run in build mode even when the caller
 * plans; the planner's stage runs in plan mode; the read-only stages inherit the caller's mode
 * (their permissions already keep them from editing).
 */
import type { TeamEntry } from "./schema.ts";

/** Bundled teams by name (the lowest catalog layer). */
export const BUNDLED_TEAMS: Readonly<Record<string, TeamEntry>> = {
  writing: {
    description: "Research, write, reference and edit a piece of writing saved in the worktree",
    tags: ["writing", "docs"],
    stages: [
      {
        type: "researcher",
        task_hint: "Gather the facts, sources and material the piece needs. Do not write the " +
          "piece itself.",
        handoff_note: "Work only from the research findings above and keep each fact's source, " +
          "so the referencer can cite it.",
      },
      {
        type: "writer",
        mode: "build",
        task_hint: "Write the piece from the research findings and save it as a Markdown file " +
          "(the path the task names, or drafts/<short-name>.md).",
        handoff_note: "The writer's result names the draft's path; check its TODO markers first.",
      },
      {
        type: "referencer",
        mode: "build",
        task_hint: "Check the draft's claims against the research findings and sources, and add " +
          "citations and a references section to the draft file.",
        handoff_note: "Keep every citation and the references section; the referencer's result " +
          "lists the claims left unverified.",
      },
      {
        type: "editor",
        mode: "build",
        task_hint: "Edit the draft file in place for clarity, structure and correctness, keeping " +
          "its citations; answer with the final path and a summary of the changes.",
      },
    ],
  },
  programming: {
    description: "Plan, implement, test and review a code change",
    tags: ["code"],
    stages: [
      {
        type: "planner",
        mode: "plan",
        task_hint: "Investigate the code and write a numbered implementation plan, with the " +
          "tests that will prove it.",
        handoff_note: "Follow the plan step by step; say where and why you deviate from it.",
      },
      {
        type: "programmer",
        mode: "build",
        task_hint: "Implement the plan with the smallest complete change, and run the " +
          "formatter, linter and tests when you can.",
        handoff_note: "The programmer's result lists the changed files; test the behaviour they " +
          "implement, edge cases included.",
      },
      {
        type: "tester",
        mode: "build",
        task_hint: "Add or update tests for the change and run the test command; report the " +
          "results and diagnose each failure.",
        handoff_note: "Weigh the tester's results and any failures in your review.",
      },
      {
        type: "code-reviewer",
        task_hint: "Review the whole change (the git diff) and give a verdict with concrete " +
          "findings.",
      },
    ],
  },
};
