/**
 * The generated files of the bundled fixtures: deterministic (a fixed-seed generator), so every
 * machine provisions byte-identical worktrees and the fixtures' hashes never change by accident.
 */

/** Park-Miller minimal standard generator: the same sequence for the same seed, everywhere. */
export function generator(seed: number): () => number {
  let state = seed % 2147483647;
  if (state <= 0) state += 2147483646;
  return () => (state = (state * 48271) % 2147483647);
}

const CHORES = [
  "water the ferns on the balcony",
  "call the plumber about the kitchen tap",
  "return the library books",
  "book the car service",
  "sort the winter clothes",
  "pay the electricity bill",
  "buy a birthday card for Ana",
  "clean the bike chain",
  "back up the photo archive",
  "replace the smoke alarm battery",
  "order printer paper",
  "defrost the freezer",
  "answer the school newsletter",
  "fix the squeaky door hinge",
  "renew the passport photos",
  "plant the tulip bulbs",
  "descale the kettle",
  "update the budget spreadsheet",
  "take the glass to recycling",
  "oil the garden shears",
  "check the tyre pressure",
  "repot the basil",
  "cancel the unused gym plan",
  "wash the window screens",
  "label the spice jars",
  "test the garage door remote",
  "renew the parking permit before friday",
  "vacuum the car seats",
  "frame the concert poster",
  "sharpen the kitchen knives",
  "mend the torn rain jacket",
  "schedule the dentist visit",
  "clear the gutter leaves",
  "donate the old monitor",
  "tighten the wobbly chair",
  "print the train tickets",
  "refill the first aid kit",
  "dust the top shelves",
  "reset the router password",
  "write the thank-you notes",
];

const CODES = ["AMBER", "BIRCH", "CEDAR", "DELTA", "EMBER", "FJORD", "GARNET", "HAZEL", "INDIGO"];

/** The reference code of line `n` (1-based) of notes/todo.txt. */
export function todoRef(n: number): string {
  const next = generator(7919 + n);
  next();
  return `${CODES[n % CODES.length]}-${1000 + (next() % 9000)}`;
}

/** notes/todo.txt: 40 chores, one a line, each with a reference code no other line has. */
export function todoFile(): string {
  return CHORES.map((chore, i) => `- ${chore} (ref ${todoRef(i + 1)})\n`).join("");
}

/** Lines of logs/service.log. */
export const LOG_LINES = 4000;

/** The request id logged on line `n` (1-based) of logs/service.log. */
export function logRequestId(n: number): string {
  const next = generator(104729 + n * 31);
  next();
  return `req-${next().toString(16).padStart(8, "0").slice(-8)}`;
}

/** logs/service.log: 4,000 access lines (about 300 KB, more than one file_read page). */
export function serviceLog(): string {
  const next = generator(2024);
  const levels = ["INFO ", "INFO ", "INFO ", "DEBUG", "WARN "];
  const lines: string[] = [];
  for (let n = 1; n <= LOG_LINES; n++) {
    const seconds = n * 7;
    const time = `${String(Math.floor(seconds / 3600) % 24).padStart(2, "0")}:${
      String(Math.floor(seconds / 60) % 60).padStart(2, "0")
    }:${String(seconds % 60).padStart(2, "0")}`;
    const level = levels[next() % levels.length];
    const worker = next() % 12;
    const ms = 3 + (next() % 480);
    lines.push(
      `2024-05-01T${time}Z ${level} worker-${String(worker).padStart(2, "0")} ` +
        `GET /api/v2/items ${logRequestId(n)} served in ${ms} ms\n`,
    );
  }
  return lines.join("");
}
