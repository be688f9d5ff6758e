/** Builds the commander program; placeholder until the commands land. */
export function runCli(_args: string[]): Promise<number> {
  return Promise.resolve(0);
}
