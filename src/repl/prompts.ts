/**
 * Questions the REPL asks in its live region while the input line waits: the permission prompt
 * of an ask-gated tool call (y once, a always for this session, n deny, Esc denies), yes/no
 * questions, and line questions (the `ask` tool, /connect's picker and key). Each takes the keys
 * until answered; Ctrl-C answers like Esc and also cancels the running turn.
 */
import type { ApprovalAnswer } from "../tool/approval.ts";
import { Editor } from "./editor.ts";
import type { KeyEvent } from "./keys.ts";

/** A question being asked. */
export interface Prompt {
  /** Lines shown above the answer. */
  lines: string[];
  /** The answer line, for questions answered by typing. */
  editor?: Editor;
  /** Takes one key; returns true once the question is answered. */
  key(key: KeyEvent): { done: boolean; interrupt?: boolean };
  /** Ends the question without an answer (turn cancelled, REPL exiting). */
  abandon(): void;
}

/** The permission prompt of one ask-gated call. */
export function permissionPrompt(
  question: string,
  resolve: (answer: ApprovalAnswer) => void,
): Prompt {
  return {
    lines: [question, "[y] allow once  [a] always for this session  [n] deny  (Esc denies)"],
    key(key) {
      const interrupt = key.ctrl && key.name === "c";
      const answer: ApprovalAnswer | null = interrupt || key.name === "escape"
        ? "deny"
        : key.ctrl || key.meta
        ? null
        : ({ y: "once", a: "always", n: "deny" } as Record<string, ApprovalAnswer>)[
          key.name.toLowerCase()
        ] ?? null;
      if (answer === null) return { done: false };
      resolve(answer);
      return { done: true, interrupt };
    },
    abandon: () => resolve("deny"),
  };
}

/** A yes/no question: y or n; Esc (and Ctrl-C) is no. */
export function confirmPrompt(question: string, resolve: (yes: boolean) => void): Prompt {
  return {
    lines: [`${question} [y/n]`],
    key(key) {
      const interrupt = key.ctrl && key.name === "c";
      if (interrupt || key.name === "escape" || key.name.toLowerCase() === "n") {
        resolve(false);
        return { done: true, interrupt };
      }
      if (!key.ctrl && !key.meta && key.name.toLowerCase() === "y") {
        resolve(true);
        return { done: true };
      }
      return { done: false };
    },
    abandon: () => resolve(false),
  };
}

/** A question answered with a line of text (Enter); Esc, or Ctrl-C on an empty line, is null. */
export function linePrompt(
  lines: string[],
  resolve: (answer: string | null) => void,
  options: { mask?: boolean } = {},
): Prompt {
  const editor = new Editor([], { mask: options.mask });
  return {
    lines,
    editor,
    key(key) {
      const action = editor.handle(key);
      if (action.type === "submit") {
        resolve(action.text);
        return { done: true };
      }
      if (action.type === "escape" || action.type === "interrupt" || action.type === "exit") {
        resolve(null);
        return { done: true, interrupt: action.type === "interrupt" };
      }
      return { done: false };
    },
    abandon: () => resolve(null),
  };
}

/** Items a pick list shows at once; the window scrolls with the selection. */
const PICK_ROWS = 10;

/**
 * A pick list (the `/resume` picker): Up and Down (or Tab) move the selection, Enter picks it,
 * Esc (and Ctrl-C) picks nothing; resolves the picked item's index or null.
 */
export function pickPrompt(
  title: string,
  { items, resolve }: { items: readonly string[]; resolve: (index: number | null) => void },
): Prompt {
  let at = 0;
  return {
    get lines() {
      const top = Math.min(Math.max(0, at - PICK_ROWS + 1), Math.max(0, items.length - PICK_ROWS));
      const shown = items.slice(top, top + PICK_ROWS)
        .map((item, i) => `${top + i === at ? "›" : " "} ${item}`);
      const more = items.length > PICK_ROWS ? ` (${at + 1}/${items.length})` : "";
      return [`${title}${more}`, ...shown, "↑/↓ select  Enter open  Esc cancel"];
    },
    key(key) {
      const interrupt = key.ctrl && key.name === "c";
      if (interrupt || key.name === "escape") {
        resolve(null);
        return { done: true, interrupt };
      }
      if (key.name === "enter" && !key.ctrl) {
        resolve(items.length ? at : null);
        return { done: true };
      }
      const step = key.name === "up" ? -1 : key.name === "down" || key.name === "tab" ? 1 : 0;
      if (items.length) at = (at + step + items.length) % items.length;
      return { done: false };
    },
    abandon: () => resolve(null),
  };
}
