// deno-lint-ignore-file no-control-regex
/**
 * The key decoder: raw terminal bytes in, key events out. Knows the sequences of xterm-like
 * terminals (CSI and SS3 cursor keys, Home/End/Delete, modifier forms like `ESC [1;5D`), Alt as
 * an ESC prefix, control characters, and bracketed paste (`ESC [200~ ... ESC [201~`) as one
 * `paste` event whose text never submits. A lone ESC is held until `flush` (the caller's short
 * timer), since it may start a sequence whose rest is still in flight.
 */

/** One key press (or a whole paste). `text` is set for printable input. */
export interface KeyEvent {
  name: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
  text?: string;
}

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

/** Final bytes of `CSI ... <final>` and `SS3 <final>` sequences. */
const FINALS: Record<string, string> = {
  A: "up",
  B: "down",
  C: "right",
  D: "left",
  H: "home",
  F: "end",
  Z: "tab", // shift-tab
};

/** `CSI <n> ~` sequences. */
const TILDES: Record<string, string> = {
  "1": "home",
  "2": "insert",
  "3": "delete",
  "4": "end",
  "5": "pageup",
  "6": "pagedown",
  "7": "home",
  "8": "end",
};

/** Control characters (after raw mode has turned off signals and line editing). */
const CONTROLS: Record<number, KeyEvent> = {
  0x03: { name: "c", ctrl: true },
  0x04: { name: "d", ctrl: true },
  0x09: { name: "tab" },
  0x0a: { name: "enter", ctrl: true }, // Ctrl-J: a new line in the input
  0x0d: { name: "enter" },
  0x08: { name: "backspace" },
  0x7f: { name: "backspace" },
  0x1b: { name: "escape" },
};

/** Stateful: feed it chunks as they arrive; partial sequences wait for the next chunk. */
export class KeyDecoder {
  #pending = "";
  #paste: string | null = null;
  #decoder = new TextDecoder();

  /** Decodes a chunk; returns the complete events in it. */
  feed(bytes: Uint8Array | string): KeyEvent[] {
    this.#pending += typeof bytes === "string"
      ? bytes
      : this.#decoder.decode(bytes, { stream: true });
    return this.#drain(false);
  }

  /** Whether a lone ESC (or a cut sequence) waits for more bytes. */
  get waiting(): boolean {
    return this.#pending.length > 0 && this.#paste === null;
  }

  /** Emits what is held as keys (a lone ESC becomes `escape`). */
  flush(): KeyEvent[] {
    return this.#drain(true);
  }

  #drain(final: boolean): KeyEvent[] {
    const out: KeyEvent[] = [];
    while (this.#pending.length) {
      if (this.#paste !== null) {
        const end = this.#pending.indexOf(PASTE_END);
        if (end < 0) {
          // Keep a possible partial end marker for the next chunk.
          const keep = partialSuffix(this.#pending, PASTE_END);
          this.#paste += this.#pending.slice(0, this.#pending.length - keep);
          this.#pending = this.#pending.slice(this.#pending.length - keep);
          if (!final || !keep) break;
          this.#paste += this.#pending;
          this.#pending = "";
          break;
        }
        this.#paste += this.#pending.slice(0, end);
        this.#pending = this.#pending.slice(end + PASTE_END.length);
        out.push({ name: "paste", text: this.#paste.replace(/\r\n?/g, "\n") });
        this.#paste = null;
        continue;
      }
      const step = this.#one(final);
      if (!step) break;
      this.#pending = this.#pending.slice(step.length);
      if (step.paste) this.#paste = "";
      else if (step.event) out.push(step.event);
    }
    return out;
  }

  /** The first key of the pending text and how many characters it used; null: need more. */
  #one(final: boolean): { length: number; event?: KeyEvent; paste?: boolean } | null {
    const s = this.#pending;
    if (s.startsWith(PASTE_START)) return { length: PASTE_START.length, paste: true };
    const c = s.charCodeAt(0);
    if (c === 0x1b) {
      if (s.length === 1) return final ? { length: 1, event: { name: "escape" } } : null;
      const next = s[1];
      if (next === "[" || next === "O") {
        const seq = /^\x1b(\[[0-9;<=>?]*|O[0-9;]*)([\x40-\x7e])/.exec(s);
        if (!seq) {
          if (!final && /^\x1b(\[[0-9;<=>?]*|O[0-9;]*)$/.test(s)) return null;
          return { length: 2, event: { name: next === "[" ? "[" : "O", meta: true, text: next } };
        }
        return { length: seq[0].length, event: csiEvent(seq[1].slice(1), seq[2]) };
      }
      // Alt + key: ESC then the key.
      const inner = this.#single(s.slice(1));
      if (!inner) return final ? { length: 1, event: { name: "escape" } } : null;
      if (inner.event.name === "escape") return { length: 1, event: { name: "escape" } };
      return { length: 1 + inner.length, event: { ...inner.event, meta: true } };
    }
    return this.#single(s);
  }

  #single(s: string): { length: number; event: KeyEvent } | null {
    if (!s.length) return null;
    const c = s.charCodeAt(0);
    const control = CONTROLS[c];
    if (control) return { length: 1, event: { ...control } };
    if (c < 0x20) {
      return { length: 1, event: { name: String.fromCharCode(c + 0x60), ctrl: true } };
    }
    const ch = String.fromCodePoint(s.codePointAt(0)!);
    return { length: ch.length, event: { name: ch, text: ch } };
  }
}

/** A CSI or SS3 sequence's event: parameters like `1;5` carry the modifiers. */
function csiEvent(params: string, final: string): KeyEvent {
  const parts = params.split(";");
  const mod = Number(parts[1] ?? "1") - 1;
  const flags = {
    ...(mod & 1 ? { shift: true } : {}),
    ...(mod & 2 ? { meta: true } : {}),
    ...(mod & 4 ? { ctrl: true } : {}),
  };
  if (final === "~" && parts[0] === "27" && parts[2] === "13") {
    return { name: "enter", ...flags }; // xterm modifyOtherKeys: Shift-Enter, Ctrl-Enter
  }
  if (final === "~") return { name: TILDES[parts[0]] ?? `unknown-${params}~`, ...flags };
  if (final === "Z") return { name: "tab", shift: true };
  if (final === "u" && parts[0] === "13") return { name: "enter", ...flags }; // kitty Shift-Enter
  return { name: FINALS[final] ?? `unknown-${params}${final}`, ...flags };
}

/** How many characters at the end of `text` could start `marker`. */
function partialSuffix(text: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, text.length); n > 0; n--) {
    if (marker.startsWith(text.slice(text.length - n))) return n;
  }
  return 0;
}
