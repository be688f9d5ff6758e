/**
 * Finds the module specifiers a TypeScript file imports, with a small tokenizer instead of a
 * regex over the text so that comments, strings, templates and regex literals never count:
 * `import ... from "x"`, `import type`, `export ... from "x"`, `import "x"`, `import("x")` and
 * `typeof import("x")`, whatever the line breaks. Computed dynamic imports are not seen.
 */

const TOKEN =
  /\s+|\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|"(?:[^"\\\n]|\\[\s\S])*"?|'(?:[^'\\\n]|\\[\s\S])*'?|[A-Za-z_$\u0080-\uffff][\w$\u0080-\uffff]*|\d[\w.]*|[\s\S]/y;

/** Words after which a `/` starts a regex literal rather than a division. */
const BEFORE_EXPRESSION = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
]);

/** The specifiers `source` imports or re-exports, in source order, repeats included. */
export function importSpecifiers(source: string): string[] {
  const found: string[] = [];
  const templates: number[] = []; // brace depth at which each open `${` returns to its template
  let depth = 0;
  let last = ""; // the last two significant tokens; a string literal is `"`
  let beforeLast = "";
  let valueEnded = false; // a `/` now would be a division
  let i = source.startsWith("#!") ? source.indexOf("\n") + 1 || source.length : 0;
  const push = (token: string) => [beforeLast, last] = [last, token];
  const literal = (text: string) => {
    if (last === "from" || last === "import" || (last === "(" && beforeLast === "import")) {
      found.push(text);
    }
    push('"');
    valueEnded = true;
  };
  const template = () => { // scans from just after "`" or a substitution's closing "}"
    const start = i;
    while (i < source.length && source[i] !== "`") {
      if (source[i] === "\\") i++;
      else if (source[i] === "$" && source[i + 1] === "{") {
        templates.push(depth++);
        i += 2;
        push("{");
        valueEnded = false;
        return;
      }
      i++;
    }
    i++;
    if (source[start - 1] === "`") return literal(source.slice(start, i - 1));
    push('"');
    valueEnded = true;
  };
  while (i < source.length) {
    const c = source[i];
    if (c === "`") {
      i++;
      template();
    } else if (c === "}" && templates.at(-1) === depth - 1) {
      templates.pop();
      depth--;
      i++;
      template();
    } else if (c === "/" && !valueEnded && source[i + 1] !== "/" && source[i + 1] !== "*") {
      const end = regexEnd(source, i);
      push(end === i + 1 ? "/" : '"');
      valueEnded = end !== i + 1;
      i = end;
    } else {
      TOKEN.lastIndex = i;
      const token = TOKEN.exec(source)![0];
      i += token.length;
      if (c <= " " || (c > "~" && /\s/.test(c))) continue;
      if (c === "/" && (token[1] === "/" || token[1] === "*")) continue;
      if (c === '"' || c === "'") literal(token.slice(1, token.endsWith(c) ? -1 : undefined));
      else {
        if (c === "{") depth++;
        else if (c === "}") depth--;
        push(token);
        const word = token.length > 1 || /[\w$\u0080-\uffff]/.test(c);
        valueEnded = word ? !BEFORE_EXPRESSION.has(token) : c === ")" || c === "]";
      }
    }
  }
  return found;
}

/** Where the regex literal starting at `start` ends; `start + 1` when the line holds none. */
function regexEnd(source: string, start: number): number {
  let inClass = false;
  for (let i = start + 1; i < source.length; i++) {
    const c = source[i];
    if (c === "\n") break;
    if (c === "\\") i++;
    else if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
    else if (c === "/" && !inClass) return i + 1;
  }
  return start + 1;
}
