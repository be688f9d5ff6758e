/**
 * The racing process of `swap_racer.ts`: exchanges two paths atomically (Linux renameat2 with
 * RENAME_EXCHANGE, so both names always exist) in a loop. Prints `ready` once the first exchange
 * succeeded, and the number of exchanges when it stops (SIGTERM, or after 60 s on its own). It
 * always stops with the pair as it started.
 */
const [a, b, rest = "0"] = Deno.args;
const restMs = Number(rest);
const libc = Deno.dlopen("libc.so.6", {
  renameat2: { parameters: ["i32", "buffer", "i32", "buffer", "u32"], result: "i32" },
});
const AT_FDCWD = -100;
const RENAME_EXCHANGE = 2;
const cString = (text: string) => new TextEncoder().encode(`${text}\0`);
const [first, second] = [cString(a), cString(b)];
const exchange = () =>
  libc.symbols.renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE) === 0;

let stop = false;
Deno.addSignalListener("SIGTERM", () => stop = true);
const deadline = Date.now() + 60_000;
if (!exchange()) throw new Error(`cannot exchange ${a} and ${b}`);
let swaps = 1;
console.log("ready");
while (!stop && Date.now() < deadline) {
  for (let i = 0; i < 50; i++) if (exchange()) swaps++;
  await new Promise((resolve) => setTimeout(resolve, restMs));
}
if (swaps % 2 === 1 && exchange()) swaps++;
console.log(swaps);
Deno.exit(0);
