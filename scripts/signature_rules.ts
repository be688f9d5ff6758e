/**
 * A `deno lint` plugin with the shape rules of Deno's style guide: an exported function takes at
 * most two positional parameters, then an options object (`positional`); a code file has at most
 * 450 lines (`file`); a
 * function, method or closure spans at most 80 lines unless a `// One piece: <why>` comment sits
 * in the comment block directly above it or on the first line of its body (`length`).
 * scripts/check_signatures.ts runs it over the tree.
 */

/** The most positional parameters an exported function may take. */
export const MAX_POSITIONAL = 2;
/** The most lines a function may span, its first and last line included. */
export const MAX_LINES = 80;
/** The most lines a code file may have (`file`): past it, split the file by concept. */
export const MAX_FILE_LINES = 450;

type Node = Deno.lint.Node;
type FunctionNode =
  | Deno.lint.FunctionDeclaration
  | Deno.lint.FunctionExpression
  | Deno.lint.ArrowFunctionExpression;
type Parameter = FunctionNode["params"][number];

const OPTIONS_NAME = /^(opts|options|init|\w*(Options|Opts|Init))$/;
const ONE_PIECE = /^\s*\/\/ One piece: \S/;
const COMMENT_LINE = /^\s*(\/\/|\/\*|\*)/;

/** Whether `param`, the last parameter, is an options object rather than a positional one. */
function isOptionsObject(param: Parameter): boolean {
  const target = param.type === "AssignmentPattern" ? param.left : param;
  if (target.type === "ObjectPattern") return true;
  if (target.type !== "Identifier") return false;
  if (OPTIONS_NAME.test(target.name)) return true;
  const annotation = target.typeAnnotation?.typeAnnotation;
  if (annotation?.type === "TSTypeLiteral") return true;
  return annotation?.type === "TSTypeReference" && annotation.typeName.type === "Identifier" &&
    OPTIONS_NAME.test(annotation.typeName.name);
}

/** Whether `param` may be left out: `name?: T` or `name = value`. */
function isOptional(param: Parameter): boolean {
  return param.type === "AssignmentPattern" || (param.type === "Identifier" && param.optional);
}

/**
 * How many of `params` are positional: all but a trailing options object, or but a single
 * optional third parameter (the Deno style guide allows one where no second is conceivable).
 */
export function positionalCount(params: readonly Parameter[]): number {
  const last = params.at(-1);
  if (!last) return 0;
  if (isOptionsObject(last)) return params.length - 1;
  if (params.length === MAX_POSITIONAL + 1 && isOptional(last)) return MAX_POSITIONAL;
  return params.length;
}

/** The statement or member that holds `node`: what a comment above it documents. */
function holder(node: FunctionNode): Node {
  let current: Node = node;
  const parent = (n: Node) => (n as { parent?: Node }).parent;
  for (let up = parent(current); up; up = parent(current)) {
    if (up.type === "Program" || up.type === "ClassBody" || up.type === "BlockStatement") break;
    if (up.type === "CallExpression" || up.type === "ObjectExpression") break;
    current = up;
  }
  return current;
}

/** A readable name for `node`: its own, its variable's, its method's or property's, else "(anonymous)". */
export function functionName(node: FunctionNode): string {
  if (node.type !== "ArrowFunctionExpression" && node.id) return node.id.name;
  const parent = (node as { parent?: Node }).parent;
  if (parent?.type === "VariableDeclarator" && parent.id.type === "Identifier") {
    return parent.id.name;
  }
  if (parent?.type === "MethodDefinition" || parent?.type === "Property") {
    if (parent.key.type === "Identifier") return parent.key.name;
  }
  return "(anonymous)";
}

/** Whether `node` is exported: `export function`, `export default function`, `export const f = () =>`. */
function isExported(node: FunctionNode): boolean {
  const top = holder(node);
  return top.type === "ExportNamedDeclaration" || top.type === "ExportDefaultDeclaration";
}

/** The 0-based line index of offset `at` in `text`. */
function lineOf(text: string, at: number): number {
  let line = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < at; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** Whether a `// One piece:` comment sits directly above `node`'s holder or opens its body. */
function saysOnePiece(text: string, node: FunctionNode): boolean {
  const lines = text.split("\n");
  const first = lineOf(text, node.body!.range[0]) + 1;
  if (ONE_PIECE.test(lines[first] ?? "")) return true;
  for (let i = lineOf(text, holder(node).range[0]) - 1; i >= 0; i--) {
    if (!COMMENT_LINE.test(lines[i])) return false;
    if (ONE_PIECE.test(lines[i])) return true;
  }
  return false;
}

function checkFunction(context: Deno.lint.RuleContext, node: FunctionNode): void {
  const text = context.sourceCode.text;
  if (isExported(node) && positionalCount(node.params) > MAX_POSITIONAL) {
    context.report({
      node,
      message: `${functionName(node)} takes ${positionalCount(node.params)} positional ` +
        `parameters: take at most ${MAX_POSITIONAL}, then an options object`,
    });
  }
  if (node.body?.type !== "BlockStatement") return;
  const lines = lineOf(text, node.range[1]) - lineOf(text, node.range[0]) + 1;
  if (lines > MAX_LINES && !saysOnePiece(text, node)) {
    context.report({
      node,
      message: `${functionName(node)} is ${lines} lines: split it into named steps, ` +
        `or say why it is one piece in a "// One piece: <why>" comment`,
    });
  }
}

const plugin: Deno.lint.Plugin = {
  name: "svc-shape",
  rules: {
    shape: {
      create(context) {
        const visit = (node: FunctionNode) => checkFunction(context, node);
        return {
          Program(node) {
            const lines = context.sourceCode.text.replace(/\n$/, "").split("\n").length;
            if (lines > MAX_FILE_LINES) {
              context.report({
                node,
                message: `the file has ${lines} lines: a file holds one concept in at most ` +
                  `${MAX_FILE_LINES} lines, so split it by concept`,
              });
            }
          },
          FunctionDeclaration: visit,
          FunctionExpression: visit,
          ArrowFunctionExpression: visit,
        };
      },
    },
  },
};

export default plugin;
