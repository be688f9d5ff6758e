/**
 * The questions open in the live region, the newest on top; while one is open it takes the keys.
 * The engine's questions (the permission prompt of an ask-gated call, the `ask` tool's question)
 * and the REPL's own (yes/no, a line) are pushed here. A question whose signal aborts, or one open
 * when a task ends or the REPL exits, is abandoned: denied, no, or no answer.
 */
import type { AskRequest } from "../tool/types.ts";
import { visibleControls } from "../util/terminal_text.ts";
import type { Approval, ApprovalRequest } from "../tool/approval.ts";
import { confirmPrompt, linePrompt, permissionPrompt, pickPrompt, type Prompt } from "./prompts.ts";
import type { Screen } from "./screen.ts";
import type { Style } from "./style.ts";
import { summarize } from "./turn_view.ts";

/** What the questions need of the REPL. */
export interface QuestionsOptions {
  /** The style of the moment (the config can change it). */
  style(): Style;
  /** The REPL is exiting: a new question is abandoned at once. */
  closing(): boolean;
}

export class Questions {
  #open: Prompt[] = [];

  constructor(readonly screen: Screen, readonly options: QuestionsOptions) {}

  /** The question answered next; undefined when none is open. */
  get top(): Prompt | undefined {
    return this.#open.at(-1);
  }

  /** Closes the top question (answered). */
  pop(): void {
    this.#open.pop();
  }

  /** Abandons every open question. */
  abandonAll(): void {
    for (const prompt of this.#open.splice(0)) prompt.abandon();
  }

  /** A yes/no question. */
  confirm(question: string): Promise<boolean> {
    return new Promise((resolve) => this.#push(confirmPrompt(question, resolve)));
  }

  /** A line question; null when dismissed or when `signal` aborts. */
  ask(
    question: string,
    options: { mask?: boolean; signal?: AbortSignal } = {},
  ): Promise<string | null> {
    return new Promise((resolve) => {
      const prompt = linePrompt([question], resolve, { mask: options.mask });
      this.#push(prompt, options.signal);
    });
  }

  /** A pick list: the index of the item picked, or null when dismissed or `signal` aborts. */
  pick(
    title: string,
    options: { items: readonly string[]; signal?: AbortSignal },
  ): Promise<number | null> {
    return new Promise((resolve) => {
      this.#push(pickPrompt(title, { items: options.items, resolve }), options.signal);
    });
  }

  /** The REPL's approver: asks about one ask-gated call and leaves a line with the answer. */
  approve(request: ApprovalRequest, signal: AbortSignal): Promise<Approval> {
    const style = this.options.style();
    return new Promise((resolve) => {
      const tool = visibleControls(request.tool);
      const question = `${style.yellow("?")} Allow ${tool} ${summarize(request.args)} ${
        style.dim(`(${visibleControls(request.reason)})`)
      }`;
      this.#push(
        permissionPrompt(question, (answer) => {
          const said = answer === "once"
            ? "allowed once"
            : answer === "always"
            ? "allowed for this session"
            : "denied";
          this.screen.commit(
            this.options.style().dim(`${said}: ${tool} ${summarize(request.args)}`),
          );
          resolve({ answer, by: "user" });
        }),
        signal,
      );
    });
  }

  /** The `ask` tool's human channel: a line, or a number for one of the request's options. */
  async askHuman(request: AskRequest, signal: AbortSignal): Promise<string | null> {
    const style = this.options.style();
    // The model's question, context and options are untrusted text.
    const question = visibleControls(request.question);
    const lines = [`${style.yellow("?")} ${question}`];
    if (request.context) lines.push(style.dim(visibleControls(request.context)));
    const options = request.options ?? [];
    options.forEach((option, i) => lines.push(`  ${i + 1}. ${visibleControls(option)}`));
    const answer = await new Promise<string | null>((resolve) => {
      this.#push(linePrompt(lines, resolve), signal);
    });
    if (answer === null) return "(the user dismissed the question without an answer)";
    const picked = /^\d+$/.test(answer.trim()) ? options[Number(answer.trim()) - 1] : undefined;
    const reply = picked ?? answer;
    this.screen.commit(`${this.options.style().dim(`${question} →`)} ${visibleControls(reply)}`);
    return reply;
  }

  #push(prompt: Prompt, signal?: AbortSignal): void {
    if (this.options.closing() || signal?.aborted) {
      prompt.abandon();
      return;
    }
    this.#open.push(prompt);
    signal?.addEventListener("abort", () => {
      const at = this.#open.indexOf(prompt);
      if (at >= 0) {
        this.#open.splice(at, 1);
        prompt.abandon();
        this.screen.schedule();
      }
    }, { once: true });
    this.screen.paint();
  }
}
