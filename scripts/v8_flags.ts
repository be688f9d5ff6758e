/**
 * V8 flags svc's entry points run with (`deno task svc`, the installed command, the compiled
 * binary). `--max-semi-space-size=1` (MiB) keeps V8's young generation small: a streamed answer
 * makes much short-lived garbage, and with the default young generation (which grows to 16 MiB and
 * more) a 2 MB answer peaked at 160-170 MiB RSS, against 97-102 MiB with the flag, at equal or
 * lower CPU; `svc serve` answered 200 KB chats 20% faster with half the CPU (docs/performance.md).
 */
export const SVC_V8_FLAGS = ["--v8-flags=--max-semi-space-size=1"] as const;
