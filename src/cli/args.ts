/** Parses `--name value`, `--name=value` and bare words; repeated options collect. */
export function parseArgs(argv: string[]): { options: Map<string, string[]>; words: string[] } {
  const options = new Map<string, string[]>();
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) {
      words.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const next = argv[i + 1];
    const value = eq !== -1 ? arg.slice(eq + 1) : next !== undefined && !next.startsWith("--") ? (i++, next) : "true";
    options.set(name, [...(options.get(name) ?? []), value]);
  }
  return { options, words };
}
